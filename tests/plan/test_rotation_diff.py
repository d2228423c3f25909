"""Pool rotation in the capacity diff: a surge pool is created before the old one is deleted, a recreated one
loses its capacity first, and a pool deployed before rotation existed is renamed once.

Moved from tests/domain/test_rotation.py (the names themselves are checked there, without running the program).
"""

from __future__ import annotations

import json
from pathlib import Path

from support.base_configs import AZURE, config
from support.stack_files import plan_config as _plan
from gpupools.cli.render import diff_lines, markdown_diff
from gpupools.plan.diff import diff_plans

AGENT_POOL = "azure-native:containerservice:AgentPool"


def _mig3g(raw: dict) -> dict:
    return config(raw, {"mig": {"profile": "MIG3g"}}, gpuSoftware={"migStrategy": "mixed"})


def test_the_diff_says_a_surge_pool_is_created_before_the_old_one_is_deleted(tmp_path: Path) -> None:
    fixed_pods = config(AZURE, {"maxPods": 110})  # else maxPods, sized from the slices, changes with the profile
    base, head = _plan(tmp_path, fixed_pods, "base").to_json(), _plan(tmp_path, _mig3g(fixed_pods), "head").to_json()
    (pool,) = diff_plans(base, head).pools
    old, new = (plan["outputs"]["gpuPools"]["mig1g"]["cloudPoolName"] for plan in (base, head))
    assert old != new and pool.change == "replaced"
    assert pool.replaced_by == ("gpuInstanceProfile", "agentPoolName")
    replacement = pool.to_json()["replacement"]
    assert (replacement["rotation"], replacement["oldName"], replacement["newName"]) == ("surge", old, new)
    line = f"surge: new pool {new} is created before {old} is deleted (up to 16 GPUs meanwhile)"
    assert replacement["description"] == line
    assert any(line in text for text in diff_lines(diff_plans(base, head)))
    assert any(line in text for text in markdown_diff(diff_plans(base, head)))


def test_the_diff_says_a_recreated_pool_loses_its_capacity_first(tmp_path: Path) -> None:
    recreate = {"rotation": "recreate", "maxPods": 110}
    base = _plan(tmp_path, config(AZURE, recreate), "base").to_json()
    head = _plan(tmp_path, _mig3g(config(AZURE, recreate)), "head").to_json()
    (pool,) = diff_plans(base, head).pools
    assert pool.replaced_by == ("gpuInstanceProfile",)
    assert pool.to_json()["replacement"]["description"] == (
        "recreate: mig1g is deleted first, its capacity (8 GPUs) is gone until mig1g is up"
    )


def test_upgrading_renames_a_pool_deployed_under_its_plain_name_once(tmp_path: Path) -> None:
    """A base planned before rotation existed: the agent pool had the config name and no rotation output."""
    head = _plan(tmp_path, config(AZURE), "head").to_json()
    base = json.loads(json.dumps(head))
    for resource in base["resources"]:
        if resource["type"] == AGENT_POOL:
            resource["inputs"]["agentPoolName"] = "mig1g"
            resource["options"]["deleteBeforeReplace"] = True
    for output in base["outputs"]["gpuPools"].values():
        output.pop("cloudPoolName"), output.pop("rotation")
    (pool,) = diff_plans(base, head).pools
    assert pool.change == "replaced" and pool.replaced_by == ("agentPoolName",)
    assert pool.replacement.rotation == "surge" and pool.replacement.old_name == "mig1g"
    assert not diff_plans(base, head).removes_capacity
