"""installer dra-driver in ``gpupools plan``: the devices NVIDIA's DRA driver publishes per node (JSON, text and
Markdown), and the capacity diff over them. Stacks without DRA print no DRA section.

Expected figures are published ones: Standard_ND96asr_v4 and p4d.24xlarge carry 8x A100 40GB; an A100 40GB holds
7x 1g.5gb (5 GB each); all-balanced is 2x 1g.5gb + 1x 2g.10gb + 1x 3g.20gb per GPU; g6.12xlarge carries 4x L4 24GB.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupools.cli import main
from gpupools.plan.diff import diff_plans
from support.dra_stacks import AKS_MIG1G_134
from support.stack_files import plan_file

AKS = AKS_MIG1G_134
EKS = {
    "cloud": "aws",
    "cluster": {
        "name": "gpu-dra",
        "region": "us-east-1",
        "kubernetesVersion": "1.34",
        "systemPool": {"size": "m6i.large"},
    },
    "gpuPools": [
        {"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}},
        {"name": "whole", "size": "g6.12xlarge"},
    ],
    "gpuSoftware": {"installer": "dra-driver"},
}


def _write(folder: Path, name: str, config: dict[str, Any]) -> Path:
    path = folder / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump({"config": {f"gpupools:{k}": v for k, v in config.items()}}, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def stacks(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("dra-plan")
    two = json.loads(json.dumps(EKS))
    two["gpuPools"][0]["count"] = 2
    fewer = json.loads(json.dumps(EKS))
    fewer["gpuPools"][0]["mig"] = {"layout": "all-3g.20gb"}
    plain = json.loads(json.dumps(EKS))
    plain["gpuSoftware"] = {"installer": "gpu-operator", "migStrategy": "mixed"}
    return {
        name: _write(folder, name, config)
        for name, config in {"aks": AKS, "eks": EKS, "two": two, "fewer": fewer, "plain": plain}.items()
    }


def test_plan_json_lists_the_devices_each_node_publishes(stacks) -> None:
    assert plan_file(stacks["aks"]).to_json()["draDevices"] == {
        "mig1g": [{"kind": "mig", "profile": "1g.5gb", "perNode": 56, "memoryGB": 5}]
    }
    assert plan_file(stacks["eks"]).to_json()["draDevices"] == {
        "balanced": [
            {"kind": "mig", "profile": "1g.5gb", "perNode": 16, "memoryGB": 5},
            {"kind": "mig", "profile": "2g.10gb", "perNode": 8, "memoryGB": 10},
            {"kind": "mig", "profile": "3g.20gb", "perNode": 8, "memoryGB": 20},
        ],
        "whole": [{"kind": "gpu", "profile": None, "perNode": 4, "memoryGB": 24}],
    }


def test_a_stack_without_the_dra_driver_has_no_dra_section(stacks, capsys) -> None:
    assert "draDevices" not in plan_file(stacks["plain"]).to_json()
    assert main(["plan", "--config", str(stacks["plain"])]) == 0
    assert "DRA driver" not in capsys.readouterr().out


def test_plan_text_and_markdown_show_the_published_devices(stacks, capsys) -> None:
    assert main(["plan", "--config", str(stacks["eks"])]) == 0
    text = capsys.readouterr().out.splitlines()
    start = text.index("Devices the DRA driver publishes per node (ResourceSlices, resource.k8s.io/v1):")
    assert [line.split() for line in text[start + 1 : start + 6]] == [
        ["POOL", "KIND", "PROFILE", "PER", "NODE", "MEMORY"],
        ["balanced", "mig", "1g.5gb", "16", "5", "GB"],
        ["balanced", "mig", "2g.10gb", "8", "10", "GB"],
        ["balanced", "mig", "3g.20gb", "8", "20", "GB"],
        ["whole", "gpu", "-", "4", "24", "GB"],
    ]
    assert main(["plan", "--config", str(stacks["aks"]), "--format", "markdown"]) == 0
    assert "| mig1g | mig | 1g.5gb | 56 | 5 GB |" in capsys.readouterr().out.splitlines()


def test_capacity_diff_compares_the_published_devices_in_total(stacks, capsys, tmp_path) -> None:
    base, two, fewer = (plan_file(stacks[name]).to_json() for name in ("eks", "two", "fewer"))
    more = diff_plans(base, two)
    counts = {name: (c.before, c.after) for name, c in more.devices["balanced"].items()}
    assert counts == {"mig 1g.5gb": (16, 32), "mig 2g.10gb": (8, 16), "mig 3g.20gb": (8, 16)}
    assert {name: (c.before, c.after) for name, c in more.devices["whole"].items()} == {"gpu": (4, 4)}
    assert not more.removes_capacity
    # all-3g.20gb: 2x 3g.20gb per GPU; the 1g.5gb and 2g.10gb devices are gone.
    lost = diff_plans(base, fewer)
    counts = {name: (c.before, c.after) for name, c in lost.devices["balanced"].items()}
    assert counts == {"mig 1g.5gb": (16, 0), "mig 2g.10gb": (8, 0), "mig 3g.20gb": (8, 16)}
    assert lost.removes_capacity
    assert lost.to_json()["draDevices"]["balanced"]["mig 1g.5gb"] == {"before": 16, "after": 0, "delta": -16}
    base_file = tmp_path / "base.json"
    base_file.write_text(json.dumps(base))
    assert main(["plan", "--config", str(stacks["fewer"]), "--base", str(base_file)]) == 0
    out = capsys.readouterr().out
    assert "  DRA devices, pool balanced: mig 1g.5gb 16 → 0, mig 2g.10gb 8 → 0, mig 3g.20gb 8 → 16" in out
    assert "DRA devices, pool whole" not in out  # unchanged pools stay out of the diff


def test_plans_without_dra_devices_diff_as_before(stacks) -> None:
    plain = plan_file(stacks["plain"]).to_json()
    diff = diff_plans(plain, plain)
    assert diff.devices == {} and "draDevices" not in diff.to_json()
