"""Pools on a reservation are priced by what is reserved, as the clouds bill them, never by running nodes.

EC2: "Capacity Reservations are charged at the equivalent On-Demand rate whether you run instances in reserved
capacity or not"; a Capacity Block is "charged up front" for its length. Azure: "if you create a reservation for 10
D2s_v3 VMs, you start getting billed for 10 D2s_v3 VMs, even if the reservation isn't being used".
"""

from __future__ import annotations

from typing import Any

import pytest

from gpupools.catalog.prices import snapshot
from gpupools.config import ConfigError
from gpupools.domain.capacity import stack_capacity
from gpupools.domain.cost import stack_cost
from gpupools.resolve.stack_loader import load_stack
from support.base_configs import PINNED_AWS, PINNED_AZURE, config, messages_at

ODCR = "cr-0123456789abcdef0"
CRG = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/gpu-capacity/providers/"
    "Microsoft.Compute/capacityReservationGroups/a100-crg"
)
BOOK = snapshot()
P4D = BOOK.lookup("p4d.24xlarge", "us-east-1", "onDemand")
P5_BLOCK = BOOK.lookup("p5.48xlarge", "us-east-1", "capacityBlock")
NC24 = BOOK.lookup("Standard_NC24ads_A100_v4", "southcentralus", "onDemand")
AT_ZERO = {"count": 0, "autoscaling": {"minCount": 0, "maxCount": 2}}


def _pool(raw: dict[str, Any]):
    stack = load_stack(raw)
    [cost] = stack_cost(stack, stack_capacity(stack.pools), BOOK).pools
    return cost, stack_cost(stack, stack_capacity(stack.pools), BOOK)


def _aws(**pool: Any) -> dict[str, Any]:
    return config(PINNED_AWS, {"subnetIds": ["subnet-0123456789abcdef0"], **AT_ZERO, **pool})


def _azure(**pool: Any) -> dict[str, Any]:
    base = config(PINNED_AZURE, {"size": "Standard_NC24ads_A100_v4", "mig": None, **AT_ZERO, **pool})
    del base["gpupools:gpuPools"][0]["mig"]
    return base


def test_odcr_at_min_count_zero_is_priced_by_its_reserved_instances():
    pool, stack = _pool(_aws(capacityReservation={"id": ODCR, "instances": 2}))
    assert pool.nodes == 0
    assert pool.hourly == pytest.approx(2 * P4D.per_hour)
    assert pool.monthly == pytest.approx(2 * P4D.per_hour * 730)
    assert pool.monthly_range == pytest.approx((2 * P4D.per_hour * 730, 2 * P4D.per_hour * 730))
    assert stack.monthly == pytest.approx(2 * P4D.per_hour * 730) and stack.unknown == []
    assert pool.to_json()["billedBy"] == "reservation"


def test_odcr_without_its_quantity_is_not_priced_and_never_zero():
    pool, stack = _pool(_aws(capacityReservation=ODCR))
    assert pool.node_hourly == P4D.per_hour
    assert pool.hourly is None and pool.monthly is None and pool.monthly_range is None
    assert "billed by the capacity reservation, not priced" in pool.note
    assert stack.monthly is None and stack.unknown == ["p4d"]


def test_capacity_block_is_paid_up_front_for_its_days():
    raw = config(
        PINNED_AWS,
        {
            "size": "p5.48xlarge",
            "mig": None,
            "capacityType": "CAPACITY_BLOCK",
            "capacityReservation": {"id": ODCR, "instances": 2, "days": 7},
            "subnetIds": ["subnet-0123456789abcdef0"],
            **AT_ZERO,
        },
    )
    del raw["gpupools:gpuPools"][0]["mig"]
    pool, _ = _pool(raw)
    assert pool.hourly == pytest.approx(2 * P5_BLOCK.per_hour)
    assert pool.upfront == pytest.approx(2 * P5_BLOCK.per_hour * 24 * 7)
    assert pool.monthly == pytest.approx(pool.upfront)  # a 7-day block costs its length within a month


def test_capacity_block_without_days_is_not_priced():
    raw = _aws(size="p5.48xlarge", capacityType="CAPACITY_BLOCK", capacityReservation={"id": ODCR, "instances": 2})
    del raw["gpupools:gpuPools"][0]["mig"]
    pool, _ = _pool(raw)
    assert pool.monthly is None and "give its days" in pool.note


def test_crg_at_zero_is_priced_by_its_reserved_count():
    pool, _ = _pool(
        _azure(capacityReservationGroupId={"id": CRG, "instances": 3}, autoscaling={"minCount": 0, "maxCount": 3})
    )
    assert pool.monthly == pytest.approx(3 * NC24.per_hour * 730)


def test_crg_above_its_reserved_count_warns_and_prices_the_extra_nodes():
    stack = load_stack(_azure(capacityReservationGroupId={"id": CRG, "instances": 1}))
    assert any("above the 1 reserved instances" in warning for warning in stack.warnings)
    [pool] = stack_cost(stack, stack_capacity(stack.pools), BOOK).pools
    assert pool.monthly_range == pytest.approx((NC24.per_hour * 730, 2 * NC24.per_hour * 730))


def test_aws_refuses_max_count_above_the_reserved_instances():
    [message] = messages_at(
        _aws(capacityReservation={"id": ODCR, "instances": 1}), "gpupools:gpuPools[0].autoscaling.maxCount"
    )
    assert "autoscaling.maxCount 2 is above the 1 instances" in message


@pytest.mark.parametrize(
    ("reservation", "expected"),
    [
        ({"id": ODCR, "size": 2}, "unknown key 'size'"),
        ({"instances": 2}, "no 'id'"),
    ],
)
def test_the_mapping_form_is_checked(reservation, expected):
    with pytest.raises(ConfigError, match=expected):
        load_stack(_aws(capacityReservation=reservation))


def test_days_only_for_a_capacity_block():
    [message] = messages_at(
        _aws(capacityReservation={"id": ODCR, "instances": 2, "days": 3}), "gpupools:gpuPools[0].capacityReservation"
    )
    assert "days applies to a Capacity Block only" in message


def test_the_plain_string_form_still_loads():
    stack = load_stack(_aws(capacityReservation=ODCR))
    assert stack.pools[0].config.capacity_reservation == ODCR and stack.pools[0].config.reserved_instances is None
