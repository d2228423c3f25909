"""Editing sharing (time-slicing or MPS replicas) or the metrics toggle within their ranges never replaces an AKS pool.

AKS fixes an agent pool's ``maxPods`` at creation (a changed value replaces the pool). gpupools computes it, so it
must not follow what those edits change: replicas 4 -> 8 on AKS is a ConfigMap change, the capacity diff says
"changed", not "replaced" (issue 27). The 30-pod floor and AKS's 250 still hold.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from gpupools.plan.diff import diff_plans
from gpupools.resolve.stack_loader import load_stack
from support.base_configs import AZURE
from support.stack_files import plan_config

T4 = {"name": "t4", "size": "Standard_NC4as_T4_v3", "count": 1}  # one T4: where the 250 cap does not bind


def _raw(pool: dict, **software) -> dict:
    raw = copy.deepcopy(AZURE)
    raw["gpupools:gpuPools"] = [pool]
    raw["gpupools:gpuSoftware"] = {"installer": "device-plugin", "version": "0.20.0", **software}
    return raw


def _sharing(kind: str, replicas: int | None) -> dict:
    if replicas is None:
        return {}
    extra = {"allowPrivilegedHostPID": True} if kind == "mps" else {}
    return {"sharing": {kind: {"replicas": replicas, **extra}}}


EDITS = {
    "time-slicing 4 -> 8": ({**T4, **_sharing("timeSlicing", 4)}, {**T4, **_sharing("timeSlicing", 8)}, {}, {}),
    "time-slicing on": (T4, {**T4, **_sharing("timeSlicing", 64)}, {}, {}),
    "mps 2 -> 48": ({**T4, **_sharing("mps", 2)}, {**T4, **_sharing("mps", 48)}, {}, {}),
    "metrics on": (T4, T4, {}, {"metrics": {"dcgmExporter": True}}),
    "ND96 MIG1g time-slicing 4 -> 8": (
        {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}, **_sharing("timeSlicing", 4)},
        {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}, **_sharing("timeSlicing", 8)},
        {},
        {},
    ),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_sharing_or_metrics_edit_keeps_max_pods(edit):
    before, after, software_before, software_after = EDITS[edit]
    old = load_stack(_raw(before, **software_before)).pools[0]
    new = load_stack(_raw(after, **software_after)).pools[0]
    assert old.max_pods == new.max_pods
    assert 30 <= new.max_pods <= 250


def test_replicas_4_to_8_on_aks_is_an_in_place_change(tmp_path: Path):
    before, after, _, _ = EDITS["time-slicing 4 -> 8"]
    base = plan_config(tmp_path, _raw(before), "base").to_json()
    head = plan_config(tmp_path, _raw(after), "head").to_json()
    (pool,) = diff_plans(base, head).pools
    assert pool.change == "changed" and pool.replaced_by == ()
    assert (pool.resources["nvidia.com/gpu"].before, pool.resources["nvidia.com/gpu"].after) == (4, 8)


def test_max_pods_still_leaves_room_for_the_most_replicas_on_a_small_pool():
    pool = load_stack(_raw({**T4, **_sharing("timeSlicing", 64)})).pools[0]
    assert pool.max_pods - pool.daemonset_pods >= 64  # every one of the 64 replicas of its one T4 fits
