"""Issue 16 item 4: a new capacity reservation group on an AKS pool is no no-op in the capacity diff.

Microsoft (use-capacity-reservation-groups, existing node pools): zonal pools with running nodes get "a rolling
reimage"; "For non-zonal (regional) node pools during the preview, first scale the node pool to zero, then apply
the capacity reservation group." Base and head are real offline plans of the same stack before and after.
"""

from __future__ import annotations

import copy
import json

import pytest

from gpupools.plan.diff import diff_plans
from support.base_configs import AZURE
from support.cli import run_cli
from support.stack_files import plan_config, write_stack_file

GROUP = (
    "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/gpu-capacity/providers/"
    "Microsoft.Compute/capacityReservationGroups/"
)


def _config(**pool) -> dict:
    raw = copy.deepcopy(AZURE)
    raw["gpupools:gpuPools"] = [{"name": "nd96", "size": "Standard_ND96asr_v4", "count": 2, **pool}]
    raw["gpupools:gpuSoftware"] = {"installer": "device-plugin", "version": "0.20.0"}
    return raw


def _diff(tmp_path, base: dict, head: dict):
    before = plan_config(tmp_path, base, "base").to_json()
    after = plan_config(tmp_path, head, "head").to_json()
    return diff_plans(before, after)


def test_a_group_added_to_a_regional_pool_with_nodes_takes_its_capacity_offline(tmp_path):
    diff = _diff(tmp_path, _config(), _config(capacityReservationGroupId=GROUP + "nd96-crg"))
    (pool,) = diff.pools
    assert pool.change == "changed" and pool.replaced_by == ()  # the same AKS pool: updated, not replaced
    assert pool.outage
    assert "capacityReservationGroupId none → nd96-crg on a regional pool with 2 nodes" in pool.effect.what
    assert "pulumi up fails" in pool.effect.what and "count: 0 first (its 16 GPUs offline)" in pool.effect.what
    assert diff.headline() == ("This change takes GPU capacity OFFLINE: nd96 (16 GPUs) must first be scaled to zero")
    assert diff.to_json()["takesCapacityOffline"] is True
    assert diff.to_json()["pools"][0]["inPlace"]["outage"] is True


def test_moving_an_autoscaled_regional_pool_to_another_group_counts_its_largest_size(tmp_path):
    bounds = {"autoscaling": {"minCount": 1, "maxCount": 3}}
    diff = _diff(
        tmp_path,
        _config(capacityReservationGroupId=GROUP + "old", **bounds),
        _config(capacityReservationGroupId=GROUP + "new", **bounds),
    )
    (pool,) = diff.pools
    assert pool.outage
    assert "old → new on a regional pool with up to 3 nodes" in pool.effect.what
    assert "up to 24 GPUs offline" in pool.effect.what


def test_a_zonal_pool_is_reimaged_in_place_without_an_outage(tmp_path):
    zones = {"availabilityZones": ["1"]}
    diff = _diff(tmp_path, _config(**zones), _config(capacityReservationGroupId=GROUP + "nd96-crg", **zones))
    (pool,) = diff.pools
    assert pool.change == "changed" and not pool.outage
    assert "reimages the zonal pool's nodes in place" in pool.effect.what
    assert not diff.headline().startswith("This change takes GPU capacity OFFLINE")


def test_a_regional_pool_without_nodes_takes_the_group_in_place(tmp_path):
    diff = _diff(tmp_path, _config(count=0), _config(count=0, capacityReservationGroupId=GROUP + "nd96-crg"))
    (pool,) = diff.pools
    assert pool.change == "changed" and not pool.outage
    assert pool.effect.what.endswith("applied in place (the regional pool has no nodes)")


def test_the_same_group_changes_nothing(tmp_path):
    config = _config(capacityReservationGroupId=GROUP + "nd96-crg")
    (pool,) = _diff(tmp_path, config, config).pools
    assert pool.change == "unchanged" and pool.effect is None


def test_a_replaced_pool_gets_its_group_at_creation(tmp_path):
    diff = _diff(tmp_path, _config(), _config(maxPods=40, capacityReservationGroupId=GROUP + "nd96-crg"))
    (pool,) = diff.pools
    assert pool.change == "replaced" and pool.effect is None and not pool.outage


@pytest.mark.parametrize(
    "output, first",
    [
        ("text", "This change takes GPU capacity OFFLINE: nd96 (16 GPUs) must first be scaled to zero"),
        (
            "markdown",
            "### `head` (azure): :warning: This change takes GPU capacity OFFLINE: nd96 (16 GPUs) must first be "
            "scaled to zero",
        ),
    ],
)
def test_plan_base_leads_with_the_outage(tmp_path, output, first):
    base = tmp_path / "base.json"
    base.write_text(json.dumps(plan_config(tmp_path, _config(), "base").to_json()))
    head = write_stack_file(tmp_path, _config(capacityReservationGroupId=GROUP + "nd96-crg"), "head")
    run = run_cli("plan", "--config", str(head), "--base", str(base), "--format", output)
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert lines[0].startswith(first)
    assert any("on a regional pool with 2 nodes" in line and "nd96" in line for line in lines[1:12])
