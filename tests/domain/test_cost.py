"""Cost arithmetic on the capacity model, with a price book built here (figures are test data, not prices)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpupools.catalog.prices import Price, PriceBook
from gpupools.domain.capacity import stack_capacity
from gpupools.catalog.cloud_registry import cloud
from gpupools.domain.cost import CAPACITY_BLOCK_NOTE, HOURS_PER_MONTH, stack_cost
from gpupools.resolve.stack_loader import load_stack
from support.base_configs import PINNED_AWS, PINNED_AZURE, config

NODE = 28.0  # USD per node-hour: test data
BOOK = PriceBook(
    "test",
    "2026-11-20",
    "USD",
    (
        Price(
            "azure", "Standard_ND96asr_v4", "southcentralus", "onDemand", NODE, "https://example.test/a", "2026-11-20"
        ),
        Price("azure", "Standard_ND96asr_v4", "southcentralus", "spot", 7.0, "https://example.test/s", "2026-11-20"),
        Price("aws", "p4d.24xlarge", "us-east-1", "onDemand", 20.0, "https://example.test/b", "2026-11-20"),
    ),
)
AZURE: dict[str, Any] = config(PINNED_AZURE, {"count": 2})
AWS: dict[str, Any] = PINNED_AWS


def _cost(base: dict[str, Any], **pool: Any):
    config = copy.deepcopy(base)
    config["gpupools:gpuPools"][0].update(pool)
    stack = load_stack(config)
    return stack_cost(stack, stack_capacity(stack.pools), BOOK)


def test_pool_hour_month_and_slice() -> None:
    [pool] = _cost(AZURE).pools
    assert pool.node_hourly == NODE and pool.hourly == 2 * NODE and pool.monthly == 2 * NODE * 730
    # MIG1g on 8 A100s: 56 slices per node, so one slice is 1/56 of the node's price.
    assert pool.slice_hourly() == {"nvidia.com/gpu": pytest.approx(NODE / 56)}
    mig3g = _cost(AZURE, mig={"profile": "MIG3g"}).pools[0]
    assert mig3g.slice_hourly() == {"nvidia.com/gpu": pytest.approx(NODE / 16)}
    assert pool.source == "https://example.test/a" and pool.retrieved == "2026-11-20"


def test_time_slicing_replicas_count_and_max_pods_cut_slices_do_not() -> None:
    shared = _cost(AZURE, mig=None, sharing={"timeSlicing": {"replicas": 4}})
    assert shared.pools[0].slice_hourly() == {"nvidia.com/gpu": pytest.approx(NODE / 32)}  # 8 GPUs x 4 replicas
    # maxPods 30 leaves 30 - daemonsets pods for 56 slices: the usable ones carry the node's price.
    cut = _cost(AZURE, maxPods=30)
    [(name, usable)] = stack_capacity(load_stack(_with(AZURE, maxPods=30)).pools)[0].per_node.items()
    assert usable < 56 and cut.pools[0].slice_hourly() == {name: pytest.approx(NODE / usable)}


def _with(base: dict[str, Any], **pool: Any) -> dict[str, Any]:
    config = copy.deepcopy(base)
    config["gpupools:gpuPools"][0].update(pool)
    return config


def test_mixed_profiles_share_the_node_by_compute_slices() -> None:
    [pool] = _cost(AWS).pools
    # all-balanced per A100: 2x 1g + 1x 2g + 1x 3g = 7 compute slices; 8 GPUs -> 56 units of 20.0 / 56 each.
    assert pool.slice_hourly() == pytest.approx(
        {
            "nvidia.com/mig-1g.5gb": 20.0 / 56,
            "nvidia.com/mig-2g.10gb": 2 * 20.0 / 56,
            "nvidia.com/mig-3g.20gb": 3 * 20.0 / 56,
        }
    )
    per_node = sum(price * pool.slices[name] for name, price in pool.slice_hourly().items())
    assert per_node == pytest.approx(20.0)  # every usable slice together costs the node


def test_autoscaled_range_and_spot() -> None:
    [pool] = _cost(AZURE, count=1, autoscaling={"minCount": 1, "maxCount": 3}).pools
    assert pool.monthly_range == (NODE * HOURS_PER_MONTH, 3 * NODE * HOURS_PER_MONTH)
    [spot] = _cost(AZURE, priority="Spot").pools
    assert spot.capacity == "spot" and spot.node_hourly == 7.0


def test_unknown_is_never_zero() -> None:
    other = copy.deepcopy(AZURE)
    other["gpupools:cluster"]["location"] = "westeurope"
    cost = _cost(other)
    assert cost.pools[0].node_hourly is None and cost.pools[0].monthly is None and cost.hourly is None
    assert cost.pools[0].slice_hourly() == {} and cost.unknown == ["mig1g"]
    assert "no onDemand price for Standard_ND96asr_v4 in westeurope" in cost.pools[0].note
    assert _cost(AWS, capacityType="SPOT").pools[0].note == cloud("aws").spot_price_note


def test_capacity_block_price_is_set_at_purchase() -> None:
    pool = {
        "capacityType": "CAPACITY_BLOCK",
        "capacityReservation": "cr-0123456789abcdef0",
        "subnetIds": ["subnet-0123456789abcdef0"],
    }
    [block] = _cost(AWS, **pool).pools
    assert block.capacity == "capacityBlock" and block.node_hourly is None and block.note == CAPACITY_BLOCK_NOTE
