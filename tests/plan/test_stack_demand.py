"""``gpupools:demand``: plan says whether the stack's pools hold the demand file they were sized for, and how many
GPUs the optimum (``gpupools fit`` on the stack's size) needs beside the stack's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from gpupools.catalog.prices import snapshot
from gpupools.config import ConfigError
from gpupools.config.loading import read_stack_file
from gpupools.domain.capacity import stack_capacity
from gpupools.fit.stack_demand import demand_lines
from gpupools.resolve.stack_loader import load_stack
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "demand.yaml"
EKS = ROOT / "Pulumi.eks.yaml"


def _stack_config(**changes) -> dict:
    return {**yaml.safe_load(EKS.read_text())["config"], "gpupools:demand": "demand.yaml", **changes}


def _lines(tmp_path: Path, config: dict) -> list[str]:
    (tmp_path / "Pulumi.x.yaml").write_text(yaml.safe_dump({"config": config}))
    stack = load_stack(config)
    capacity = stack_capacity(stack.pools)
    return demand_lines(stack, read_stack_file(tmp_path / "Pulumi.x.yaml"), capacity, snapshot())


def test_a_stack_short_of_its_demand_says_what_is_short(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "demand.yaml")
    (line,) = _lines(tmp_path, _stack_config())
    # all-balanced on one p4d: 16 of the 20 1g.5gb replicas, and no pool without MIG for the 2 whole GPUs.
    assert "no longer hold" in line and "nvidia.com/mig-1g.5gb 16 of 20" in line and "nvidia.com/gpu 0 of 2" in line
    assert "this stack has 8 GPUs" in line


def test_the_fit_answer_holds_its_demand_and_the_optimum_is_named(tmp_path):
    demand = {**yaml.safe_load(EXAMPLE.read_text()), "size": "p4d.24xlarge"}
    (tmp_path / "demand.yaml").write_text(yaml.safe_dump(demand))
    run = run_cli("fit", str(tmp_path / "demand.yaml"), "--json")
    answer = json.loads(run.out)
    config = _stack_config(
        **{"gpupools:gpuPools": answer["stack"]["gpuPools"], "gpupools:gpuSoftware": answer["stack"]["gpuSoftware"]}
    )
    (line,) = _lines(tmp_path, config)
    stack_gpus = sum(pool["count"] for pool in answer["stack"]["gpuPools"]) * answer["gpusPerNode"]
    assert line.startswith("demand: the pools hold the demand in demand.yaml;")
    assert f"needs {answer['gpus']} GPUs on {answer['nodes']} nodes" in line
    assert f"this stack has {stack_gpus} GPUs" in line


def test_a_missing_demand_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError) as raised:
        _lines(tmp_path, _stack_config())
    assert "demand.yaml" in str(raised.value.problems[0])


def test_plan_prints_it(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "demand.yaml")
    (tmp_path / "Pulumi.x.yaml").write_text(yaml.safe_dump({"config": _stack_config()}))
    run = run_cli("plan", "--config", str(tmp_path / "Pulumi.x.yaml"), "--json")
    assert run.code == 0, run.err
    assert any(w.startswith("demand: the pools no longer hold") for w in json.loads(run.out)["warnings"])


def test_check_reads_it_as_plan_does(tmp_path):
    """check says whether the pools hold the demand (the same verdict as plan's), and refuses the same files."""
    shutil.copy(EXAMPLE, tmp_path / "demand.yaml")
    (tmp_path / "Pulumi.x.yaml").write_text(yaml.safe_dump({"config": _stack_config()}))
    check = run_cli("check", "--config", str(tmp_path / "Pulumi.x.yaml"), "--json")
    plan = run_cli("plan", "--config", str(tmp_path / "Pulumi.x.yaml"), "--json")
    checked = [w for w in json.loads(check.out)["warnings"] if w.startswith("demand:")]
    planned = [w for w in json.loads(plan.out)["warnings"] if w.startswith("demand:")]
    assert len(checked) == 1 and checked[0].split(" (the optimum")[0] == planned[0].split("; the optimum")[0]
    (tmp_path / "demand.yaml").write_text("cloud: aws\nregion: us-east-1\nworkloads: []\n")
    refusals = [run_cli(c, "--config", str(tmp_path / "Pulumi.x.yaml")) for c in ("check", "plan")]
    assert (
        [r.code for r in refusals] == [2, 2] and refusals[0].err == refusals[1].err and "workloads" in refusals[0].err
    )


def test_a_demand_outside_the_project_needs_the_flag(tmp_path):
    (tmp_path / "project").mkdir()
    shutil.copy(EXAMPLE, tmp_path / "demand.yaml")
    stack = tmp_path / "project" / "Pulumi.x.yaml"
    stack.write_text(yaml.safe_dump({"config": _stack_config(**{"gpupools:demand": "../demand.yaml"})}))
    refused = run_cli("check", "--config", str(stack))
    assert refused.code == 2 and "gpupools:demand: '../demand.yaml' leads outside the project" in refused.err
    allowed = run_cli("check", "--config", str(stack), "--demand-outside-project", "--json")
    assert allowed.code == 0, allowed.err
    assert any(w.startswith("demand: the pools no longer hold") for w in json.loads(allowed.out)["warnings"])
