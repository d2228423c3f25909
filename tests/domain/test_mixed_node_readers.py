"""Every reader of a pool's MIG layout on a node cut per GPU: 6 GPUs of {1g.10gb: 4, 1g.20gb: 1, 2g.20gb: 1} and 2
left whole on a p4de.24xlarge (8x A100-80GB). Expected figures are counted here from the layout, GPU by GPU."""

from __future__ import annotations

from typing import Any

import pytest

from gpupools.catalog.prices import Price, PriceBook
from gpupools.domain.capacity import stack_capacity
from gpupools.domain.cost import stack_cost
from gpupools.domain.dra import published_devices
from gpupools.domain.workloads import WorkloadError, slice_workload
from gpupools.resolve.stack_loader import load_stack
from support.base_configs import PINNED_AWS, config

MIX = {"1g.10gb": 4, "1g.20gb": 1, "2g.20gb": 1}
LAYOUT = [{"gpus": 6, "mix": MIX}, {"gpus": 2, "whole": True}]
CUT, WHOLE = 6, 2
NODES = 2


def _stack(installer: str = "gpu-operator", **pool: Any):
    software = {"installer": installer, "version": "0.4.1"} if installer != "gpu-operator" else {}
    return load_stack(
        config(
            PINNED_AWS,
            {"name": "p4de", "size": "p4de.24xlarge", "count": NODES, "mig": {"layout": LAYOUT}, **pool},
            gpuSoftware=software,
        )
    )


def _per_node() -> dict[str, int]:
    counted = {f"nvidia.com/mig-{profile}": CUT * count for profile, count in MIX.items()}
    return {**counted, "nvidia.com/gpu": WHOLE}


def test_capacity_per_node_and_in_total():
    (capacity,) = stack_capacity(_stack().pools)
    assert (
        capacity.per_node
        == _per_node()
        == {
            "nvidia.com/mig-1g.10gb": 24,
            "nvidia.com/mig-1g.20gb": 6,
            "nvidia.com/mig-2g.20gb": 6,
            "nvidia.com/gpu": 2,
        }
    )
    assert capacity.total == {name: NODES * count for name, count in _per_node().items()}


def test_time_slicing_multiplies_every_resource_whole_gpus_too():
    (capacity,) = stack_capacity(_stack(sharing={"timeSlicing": {"replicas": 2}}).pools)
    assert capacity.advertised == {name: 2 * count for name, count in _per_node().items()}


def test_a_slice_costs_the_node_shared_by_compute_and_a_whole_gpu_weighs_its_seven_slices():
    hourly = 40.0
    book = PriceBook(
        "test",
        "2026-11-20",
        "USD",
        (Price("aws", "p4de.24xlarge", "us-east-1", "onDemand", hourly, "https://example.test/p", "2026-11-20"),),
    )
    stack = _stack()
    (pool,) = stack_cost(stack, stack_capacity(stack.pools), book).pools
    # Compute slices on one node: each cut GPU uses 4x1 + 1x1 + 1x2 = 7, each whole GPU is 7 of an A100's 7.
    units = CUT * (4 * 1 + 1 * 1 + 1 * 2) + WHOLE * 7
    prices = pool.slice_hourly()
    assert prices["nvidia.com/mig-1g.10gb"] == pytest.approx(hourly / units)
    assert prices["nvidia.com/mig-2g.20gb"] == pytest.approx(2 * hourly / units)
    assert prices["nvidia.com/gpu"] == pytest.approx(7 * hourly / units)
    assert sum(prices[name] * count for name, count in _per_node().items()) == pytest.approx(hourly)


def test_workloads_ask_for_a_profile_or_a_whole_gpu():
    stack = _stack()
    assert slice_workload(stack, "p4de", "1g.20gb").limits == {"nvidia.com/mig-1g.20gb": "1"}
    assert slice_workload(stack, "p4de", None, 2).limits == {"nvidia.com/gpu": "2"}
    with pytest.raises(WorkloadError, match="advertises 2x nvidia.com/gpu per node"):
        slice_workload(stack, "p4de", None, 3)
    with pytest.raises(WorkloadError, match="no 3g.40gb slices"):
        slice_workload(stack, "p4de", "3g.40gb")


def test_dra_publishes_each_profile_and_the_whole_gpus():
    (pool,) = _stack("dra-driver", count=1).pools
    found = {(device.kind, device.profile): (device.per_node, device.per_gpu) for device in published_devices(pool)}
    assert found == {
        ("mig", "1g.10gb"): (24, 4),
        ("mig", "1g.20gb"): (6, 1),
        ("mig", "2g.20gb"): (6, 1),
        ("gpu", None): (2, 1),
    }


def test_a_dra_claim_without_a_profile_is_a_whole_gpu_and_four_1g_fit_one_gpu_but_five_do_not():
    stack = _stack("dra-driver", count=1)
    template = slice_workload(stack, "p4de").claim_template
    assert template is not None and template["metadata"]["name"] == "p4de-gpu"
    assert slice_workload(stack, "p4de", "1g.10gb", 4).claim_template is not None
    with pytest.raises(WorkloadError, match="4x mig-1g.10gb per GPU"):
        slice_workload(stack, "p4de", "1g.10gb", 5)
