"""EKS surge is create-first (issue 27): each generation of a node group is a resource of its own.

The proof is on the recorded registrations of two real offline plans, p4d -> p4de: the head registers the new
generation's ManagedNodeGroup under a new logical name (so a new URN) and no longer registers the old one. Pulumi's
engine creates a newly registered resource while the program runs and deletes a resource the program stopped
registering only once it has finished (pulumi/pulumi v3.259.0 ``pkg/resource/deploy/deployment_executor.go``:
``performPostSteps`` -> ``GenerateDeletes``/``ScheduleDeletes`` after the source iterator's final event; a failed
program bails before them). Where a replacement stays delete-first (``rotation: recreate``) it is offline in the
JSON, the text and the Markdown, and the cost diff prices no overlap.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gpupools.catalog.prices import snapshot
from gpupools.plan.cost_diff import cost_diff
from gpupools.plan.diff import diff_plans
from support.base_configs import PINNED_AWS
from support.cli import run_cli
from support.stack_files import plan_config, write_stack_file

GROUP = "eks:index:ManagedNodeGroup"
P4D = snapshot().lookup("p4d.24xlarge", "us-east-1", "onDemand").per_hour
P4DE = snapshot().lookup("p4de.24xlarge", "us-east-1", "onDemand").per_hour


def _raw(size: str, **pool) -> dict:
    raw = copy.deepcopy(PINNED_AWS)
    raw["gpupools:gpuPools"][0].update({"size": size, **pool})
    return raw


@pytest.fixture(scope="module")
def surge(tmp_path_factory):
    folder = tmp_path_factory.mktemp("surge")
    return plan_config(folder, _raw("p4d.24xlarge"), "base"), plan_config(folder, _raw("p4de.24xlarge"), "head")


def _groups(plan) -> dict[str, dict]:
    return {r["name"]: r for r in plan.resources if r["type"] == GROUP and r["name"].startswith("p4d-")}


def test_the_new_generation_is_a_new_resource_and_the_old_one_is_no_longer_registered(surge):
    base, head = surge
    old = base.outputs["gpuPools"]["p4d"]["cloudPoolName"]
    new = head.outputs["gpuPools"]["p4d"]["cloudPoolName"]
    assert old != new
    assert set(_groups(base)) == {f"p4d-{old}"}
    assert set(_groups(head)) == {f"p4d-{new}"}  # a new URN; the old one is gone from the program
    # The component, its parent chain and the stack outputs keep their names: dependents and StackReferences hold.
    components = {r["name"] for r in head.resources if r["type"] == "gpupools:index:EksGpuNodeGroup"}
    assert components == {r["name"] for r in base.resources if r["type"] == "gpupools:index:EksGpuNodeGroup"}
    assert _groups(head)[f"p4d-{new}"]["parent"] == _groups(base)[f"p4d-{old}"]["parent"]
    assert set(head.outputs) == set(base.outputs) and set(head.outputs["gpuPools"]) == {"p4d"}


def test_a_group_named_by_an_earlier_gpupools_is_kept_by_an_alias():
    """A group an earlier gpupools registered as ``<name>-ng`` becomes the current generation (no replacement); a
    later generation's old group has the generation name, which no alias names, so it is a new resource."""
    import pulumi

    from gpupools.aws.gpu_node_group import _earlier_names, _generation_name

    args = {"node_group_name": "p4d-z003v", "instance_type": "p4d.24xlarge", "desired_size": 1}
    create_first = pulumi.ResourceOptions(delete_before_replace=False)
    assert _generation_name("p4d", args, create_first) == "p4d-p4d-z003v"
    (alias,) = _earlier_names("p4d", args, create_first)
    assert alias.name == "p4d-ng"
    assert _generation_name("p4d", args, None) == "p4d-ng" and _earlier_names("p4d", args, None) is None


def test_the_diff_and_cost_say_create_first_with_the_overlap(surge):
    base, head = (plan.to_json() for plan in surge)
    diff = diff_plans(base, head)
    (pool,) = diff.pools
    assert pool.change == "replaced" and pool.replacement.order == "create-first"
    assert not diff.takes_capacity_offline and diff.to_json()["takesCapacityOffline"] is False
    assert pool.to_json()["replacement"]["takesCapacityOffline"] is False
    (priced,) = cost_diff(base, head, diff).pools
    assert priced.surge_hourly == pytest.approx(P4D + P4DE)


def test_a_delete_first_replacement_is_offline_everywhere_and_has_no_overlap(tmp_path: Path):
    base_file = tmp_path / "base.json"
    base_raw = _raw("p4d.24xlarge", rotation="recreate")
    base_file.write_text(run_cli("plan", "--json", "--config", str(write_stack_file(tmp_path, base_raw, "b"))).out)
    head = write_stack_file(tmp_path, _raw("p4de.24xlarge", rotation="recreate"), "h")
    as_json = json.loads(run_cli("plan", "--json", "--config", str(head), "--base", str(base_file)).out)
    assert as_json["diff"]["takesCapacityOffline"] is True
    (pool,) = as_json["diff"]["pools"]
    assert pool["replacement"]["order"] == "delete-first" and pool["replacement"]["takesCapacityOffline"] is True
    assert as_json["diff"]["cost"]["pools"][0]["surgeHourly"] is None
    text = run_cli("plan", "--config", str(head), "--base", str(base_file)).out.splitlines()[0]
    assert "OFFLINE meanwhile: p4d (8 GPUs) deleted before its replacement is up" in text
    markdown = run_cli("plan", "--format", "markdown", "--config", str(head), "--base", str(base_file)).out
    assert "OFFLINE meanwhile: p4d (8 GPUs) deleted before its replacement is up" in markdown.splitlines()[0]
    (row,) = [line for line in markdown.splitlines() if line.startswith("| p4d | $")]
    assert row.endswith("| - |")  # no price while both generations exist: they never do
