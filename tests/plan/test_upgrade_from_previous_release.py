"""The first ``pulumi up`` after upgrading gpupools: today's stacks planned against the plans 0.2.0 made of them.

``tests/plan/previous_release/`` holds ``plan --json`` of every stack 0.2.0 shipped, made at that release's commit
with its code. 0.2.0 named every EKS node group's resource ``<pool>-ng``; today a surge pool's ManagedNodeGroup is
``<pool>-<node group name>`` with an alias to ``<pool>-ng``, except where the GPU Operator cuts the pool: its name
now hashes the layout, so differs from 0.2.0's, and it carries no alias (a new resource, created first). The engine
matches an alias found in the state and treats the two as one resource (pulumi/pulumi v3.259.0
``step_generator.go``), so against 0.2.0 state the new generation *is* the old group: kept when its name is
unchanged, replaced when a fixed field changes, and then in the order the provider asks, delete-first for a node
group whose name is set (pulumi-terraform-bridge ``nameRequiresDeleteBeforeReplace``; pulumi-aws names
``nodeGroupName`` an autonamed field). Each change type is
planned against those plans, and the plan must show the order the engine will take.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from support.cli import run_cli
from support.plan_once import one_program_run_per_stack_file
from support.stack_files import REPO, write_stack_file

PREVIOUS = Path(__file__).parent / "previous_release"
SHIPPED = sorted(path.name.removesuffix(".plan.json") for path in PREVIOUS.glob("*.plan.json"))
GROUP = "eks:index:ManagedNodeGroup"


def _config(stack: str) -> dict:
    return yaml.safe_load((REPO / f"Pulumi.{stack}.yaml").read_text())["config"]


def _plan(folder: Path, stack: str, config: dict, *flags: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = write_stack_file(folder, config, stack)
    run = run_cli("plan", "--config", str(path), "--base", str(PREVIOUS / f"{stack}.plan.json"), *flags)
    assert run.code == 0, run.err
    return run.out


def _all(folder: Path, stack: str, config: dict) -> tuple[dict, str, str]:
    """JSON diff, text and Markdown of ``config`` against the stack's 0.2.0 plan."""
    with one_program_run_per_stack_file():
        diff = json.loads(_plan(folder, stack, config, "--json"))["diff"]
        return diff, _plan(folder, stack, config), _plan(folder, stack, config, "--format", "markdown")


def _gone(text: str) -> list[str]:
    """The resources the tree lists as deleted (``-`` at the start of a line)."""
    return [line for line in text.splitlines() if re.match(r"^- +\S+:\S+  ", line)]


def test_every_shipped_stack_of_the_previous_release_is_here():
    assert SHIPPED == ["dev", "eks", "existing"]
    for stack in SHIPPED:
        plan = json.loads((PREVIOUS / f"{stack}.plan.json").read_text())
        assert plan["stack"] == stack and plan["capacity"] and "planDate" not in plan  # 0.2.0 printed no date


@pytest.mark.parametrize("stack", SHIPPED)
def test_each_shipped_stack_plans_against_its_previous_release(stack, tmp_path):
    diff, text, markdown = _all(tmp_path, stack, _config(stack))
    assert {pool["change"] for pool in diff["pools"]} <= {"unchanged", "changed", "replaced"}
    assert diff["removesCapacity"] is False
    assert markdown.startswith(f"### `{stack}` (")


def _whole(config: dict) -> dict:
    """The shipped EKS pool without MIG: a surge pool whose generation hashes only fields fixed at creation, so its
    node group keeps 0.2.0's name and carries the alias to ``<pool>-ng``."""
    del config["gpupools:gpuPools"][0]["mig"]
    return config


@pytest.mark.parametrize("stack", SHIPPED)
def test_every_shipped_stack_rotates_once_and_none_is_delete_first(stack, tmp_path):
    """dev and existing: 0.2.0's AKS pools had another maxPods; eks: a surge pool the GPU Operator cuts now hashes
    its layout into its generation, so its node group name differs from 0.2.0's and it carries no alias."""
    diff, text, markdown = _all(tmp_path, stack, _config(stack))
    assert diff["pools"] and all(pool["change"] == "replaced" for pool in diff["pools"])
    for pool in diff["pools"]:
        replacement = pool["replacement"]
        assert replacement["order"] == "create-first" and "aliasedFrom" not in replacement
        assert replacement["oldName"] != replacement["newName"]
    assert diff["takesCapacityOffline"] is False and "OFFLINE" not in diff["headline"]
    assert "is created before" in text and "delete-first" not in text


def test_the_eks_rotation_is_a_new_node_group_and_the_old_one_deleted(tmp_path):
    """No alias: the engine creates the new generation and deletes 0.2.0's p4d-balanced-ng after the program."""
    diff, text, markdown = _all(tmp_path, "eks", _config("eks"))
    [pool] = diff["pools"]
    assert pool["replacement"]["description"].startswith("surge: new pool p4d-balanced-")
    [gone] = [line for line in _gone(text) if GROUP in line]
    assert gone.split()[-1] == "p4d-balanced-ng"
    [line] = [line for line in text.splitlines() if GROUP in line and "p4d-balanced-p4d-balanced-" in line]
    assert line.strip().startswith("+ ")


@pytest.fixture(scope="module")
def eks_same(tmp_path_factory):
    return _all(tmp_path_factory.mktemp("same"), "eks", _whole(_config("eks")))


def test_an_unchanged_eks_pool_is_the_same_node_group_under_its_new_name(eks_same):
    """The alias adopts p4d-balanced-ng: no create and delete of a group with the same EKS name."""
    diff, text, markdown = eks_same
    [pool] = diff["pools"]
    assert pool["change"] != "replaced" and pool["replacement"] is None
    assert not any("p4d-balanced-ng" in line for line in _gone(text))
    [line] = [line for line in text.splitlines() if GROUP in line and "p4d-balanced-p4d-balanced-" in line]
    assert not line.strip().startswith(("+", "-"))


@pytest.fixture(scope="module")
def eks_p4de(tmp_path_factory):
    config = _whole(_config("eks"))
    config["gpupools:gpuPools"][0]["size"] = "p4de.24xlarge"
    return _all(tmp_path_factory.mktemp("p4de"), "eks", config)


def test_a_new_generation_over_0_2_0_state_is_a_delete_first_replacement(eks_p4de):
    diff, text, markdown = eks_p4de
    [pool] = diff["pools"]
    assert pool["change"] == "replaced"
    replacement = pool["replacement"]
    assert replacement["rotation"] == "surge" and replacement["order"] == "delete-first"
    assert replacement["takesCapacityOffline"] is True and replacement["aliasedFrom"] == "p4d-balanced-ng"
    assert diff["takesCapacityOffline"] is True
    assert "OFFLINE meanwhile: p4d-balanced (8 GPUs) deleted before its replacement is up" in diff["headline"]
    # Said with why and how to keep create-first; never "created before".
    assert "carries an alias to p4d-balanced-ng" in replacement["description"]
    assert "deploy this gpupools once without changing the pool" in replacement["description"]
    assert "is created before" not in text and "is created before" not in markdown
    assert json.loads(json.dumps(diff["cost"]))["pools"][0]["surgeHourly"] is None  # no overlap is priced


def test_the_tree_shows_one_replaced_resource_not_a_create_and_a_delete(eks_p4de):
    diff, text, markdown = eks_p4de
    [line] = [line for line in text.splitlines() if GROUP in line and "p4d-balanced-p4d-balanced-" in line]
    assert line.strip().startswith("+- ")
    assert not any(GROUP in line for line in _gone(text))
    assert "1 to replace" in markdown and "to delete" not in markdown.split("Plan: ", 1)[1].splitlines()[0]


@pytest.mark.parametrize(
    ("change", "expected", "order"),
    [
        ({"count": 2}, "replaced", "create-first"),
        ({"mig": {"layout": "all-1g.5gb"}}, "replaced", "create-first"),
        # recreate names the group by its config name, not 0.2.0's generation: replaced, delete-first as asked.
        ({"rotation": "recreate"}, "replaced", "delete-first"),
        ({"rotation": "recreate", "size": "p4de.24xlarge"}, "replaced", "delete-first"),
    ],
)
def test_each_change_type_against_the_previous_release(change, expected, order, tmp_path):
    config = _config("eks")
    config["gpupools:gpuPools"][0].update(change)
    with one_program_run_per_stack_file():
        diff = json.loads(_plan(tmp_path, "eks", config, "--json"))["diff"]
    [pool] = diff["pools"]
    assert pool["change"] == expected
    assert (pool["replacement"] or {}).get("order") == order
    assert "aliasedFrom" not in (pool["replacement"] or {})
    if "count" in change:  # the surge pool's one rotation, with more nodes: more capacity, nothing offline
        assert diff["takesCapacityOffline"] is False and pool["gpus"] == {"before": 8, "after": 16, "delta": 8}
    assert diff["takesCapacityOffline"] is (order == "delete-first")


def test_a_pool_added_and_one_kept_against_the_previous_release(tmp_path):
    config = _whole(_config("eks"))
    config["gpupools:gpuPools"].append({"name": "p5", "size": "p5.48xlarge", "count": 1})
    with one_program_run_per_stack_file():
        diff = json.loads(_plan(tmp_path, "eks", config, "--json"))["diff"]
    changes = {pool["pool"]: pool["change"] for pool in diff["pools"]}
    assert changes["p5"] == "added" and changes["p4d-balanced"] != "replaced"
    assert "p5: none → 8× nvidia.com/" in diff["headline"]


def test_the_aks_stacks_one_time_rotation_is_create_first(tmp_path):
    """0.2.0's AKS pools had another maxPods: today's are replaced once, surge, each under one logical name whose
    deleteBeforeReplace: false reaches the engine (a new agentPoolName, so no clash)."""
    diff, text, markdown = _all(tmp_path, "dev", _config("dev"))
    [pool] = diff["pools"]
    assert pool["change"] == "replaced" and pool["replacement"]["order"] == "create-first"
    assert "aliasedFrom" not in pool["replacement"]
    assert diff["takesCapacityOffline"] is False
