"""A stack whose node is cut per GPU plans offline (``gpupools plan --config FILE``), and ``plan --base`` sees a
re-cut as capacity per slice. The repository's EKS stack is one p4d.24xlarge (8x A100-40GB) all-balanced
({1g.5gb: 2, 2g.10gb: 1, 3g.20gb: 1} per GPU: 16/8/8 per node); here 6 of its GPUs stay balanced and 2 are left
whole: 12/6/6 and 2x nvidia.com/gpu, counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpupools.cli import main
from gpupools.plan.diff import diff_plans
from support.stack_files import plan_file

REPO = Path(__file__).resolve().parents[2]
BALANCED = {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}
LAYOUT = [{"gpus": 6, "mix": BALANCED}, {"gpus": 2, "whole": True}]


@pytest.fixture(scope="module")
def per_gpu(tmp_path_factory) -> Path:
    document = yaml.safe_load((REPO / "Pulumi.eks.yaml").read_text(encoding="utf-8"))
    document["config"]["gpupools:gpuPools"][0]["mig"] = {"layout": LAYOUT}
    path = tmp_path_factory.mktemp("pergpu") / "Pulumi.pergpu.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def plans(per_gpu) -> dict[str, dict]:
    return {"base": plan_file(REPO / "Pulumi.eks.yaml").to_json(), "head": plan_file(per_gpu).to_json()}


def test_the_plan_runs_offline_and_prints_the_groups(per_gpu, capsys):
    assert main(["plan", "--config", str(per_gpu)]) == 0
    out = capsys.readouterr().out
    assert "12x nvidia.com/mig-1g.5gb, 6x nvidia.com/mig-2g.10gb, 6x nvidia.com/mig-3g.20gb, 2x nvidia.com/gpu" in out
    assert "per GPU: 6x {1g.5gb: 2, 2g.10gb: 1, 3g.20gb: 1} + 2x whole" in out


def test_the_plan_carries_the_per_device_mig_parted_config_and_the_node_label(plans):
    resources = plans["head"]["resources"]
    (release,) = [r for r in resources if r["type"] == "kubernetes:helm.sh/v3:Release"]
    config = release["inputs"]["values"]["migManager"]["config"]
    parted = yaml.safe_load(config["data"]["config.yaml"])
    entries = parted["mig-configs"]["gpupools-p4d-balanced"]
    assert [(e["devices"], e["mig-enabled"], e.get("mig-devices")) for e in entries] == [
        ([0, 1, 2, 3, 4, 5], True, BALANCED),
        ([6, 7], False, None),
    ]
    (group,) = [r for r in resources if r["type"] == "eks:index:ManagedNodeGroup" and "p4d" in r["name"]]
    assert group["inputs"]["labels"]["nvidia.com/mig.config"] == "gpupools-p4d-balanced"
    assert plans["head"]["outputs"]["gpuPools"]["p4d-balanced"]["migGpus"] == LAYOUT


def test_the_diff_counts_each_slice_the_recut_removes_and_the_whole_gpus_it_adds(plans, per_gpu, tmp_path, capsys):
    diff = diff_plans(plans["base"], plans["head"])
    counts = {name: (c.before, c.after) for name, c in diff.resources.items()}
    assert counts == {
        "nvidia.com/mig-1g.5gb": (16, 12),
        "nvidia.com/mig-2g.10gb": (8, 6),
        "nvidia.com/mig-3g.20gb": (8, 6),
        "nvidia.com/gpu": (0, 2),
    }
    assert diff.removes_capacity and diff.headline().startswith("This change REMOVES GPU capacity")
    base = tmp_path / "base.json"
    base.write_text(json.dumps(plans["base"]), encoding="utf-8")
    assert main(["plan", "--config", str(per_gpu), "--base", str(base)]) == 0
    out = capsys.readouterr().out
    headline = out.splitlines()[0]  # what goes and what arrives, per pool (plan/headline.py)
    assert "16× nvidia.com/mig-1g.5gb" in headline and "12× nvidia.com/mig-1g.5gb" in headline
    assert "2× nvidia.com/gpu" in headline
    # The shipped pool is a surge pool the GPU Operator cuts: its per-GPU layout is in its generation, so the new
    # layout comes on a new node group created first, not as a live re-cut that drains.
    assert "OFFLINE" not in headline and "kubectl drain" not in out
    assert "pool p4d-balanced: replaced by surge: new pool p4d-balanced-" in out and "is created before" in out


def test_a_recreate_pool_is_re_cut_in_place_for_its_per_gpu_layout(per_gpu, tmp_path, capsys):
    """Without surge the node group stays and its node is re-cut live: the headline says the slices go offline."""
    stacks = []
    for path in (REPO / "Pulumi.eks.yaml", per_gpu):
        raw = yaml.safe_load(path.read_text())
        raw["config"]["gpupools:gpuPools"][0]["rotation"] = "recreate"
        folder = tmp_path / str(len(stacks))
        folder.mkdir()
        stacks.append(folder / "Pulumi.eks.yaml")
        stacks[-1].write_text(yaml.safe_dump(raw), encoding="utf-8")
    base = tmp_path / "base.json"
    base.write_text(json.dumps(plan_file(stacks[0]).to_json()), encoding="utf-8")
    assert main(["plan", "--config", str(stacks[1]), "--base", str(base)]) == 0
    headline = capsys.readouterr().out.splitlines()[0]
    assert "OFFLINE meanwhile: p4d-balanced (8 GPUs) is re-cut in place" in headline  # a live re-cut drains
