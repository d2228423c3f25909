"""Workload helpers: the toleration, node selector and limits for 'one slice of profile P on pool X'."""

from __future__ import annotations

import pytest

from gpupools.resolve.stack_loader import load_stack
from gpupools.domain.workloads import WorkloadError, slice_workload

CLUSTER = {"name": "c", "resourceGroup": "rg", "location": "westus", "systemPool": {"size": "Standard_D4s_v5"}}


def azure(pools: list[dict], strategy: str) -> object:
    return load_stack(
        {
            "cloud": "azure",
            "cluster": CLUSTER,
            "gpuPools": pools,
            "gpuSoftware": {"installer": "device-plugin", "migStrategy": strategy},
        }
    )


MIG1G = {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}}
T4_SHARED = {
    "name": "tfour",
    "size": "Standard_NC64as_T4_v3",
    "sharing": {"timeSlicing": {"replicas": 4, "renameByDefault": True, "failRequestsGreaterThanOne": True}},
}


def test_single_strategy_asks_for_nvidia_com_gpu() -> None:
    workload = slice_workload(azure([MIG1G], "single"), "mig1g", "1g.5gb")
    assert workload.limits == {"nvidia.com/gpu": "1"}
    assert workload.tolerations == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert workload.node_selector == {"gpupools.io/pool": "mig1g"}


def test_mixed_strategy_asks_for_the_mig_resource() -> None:
    workload = slice_workload(azure([MIG1G], "mixed"), "mig1g", "1g.5gb", count=2)
    assert workload.limits == {"nvidia.com/mig-1g.5gb": "2"}


def test_renamed_time_slices_use_the_shared_name() -> None:
    workload = slice_workload(azure([T4_SHARED], "none"), "tfour")
    assert workload.limits == {"nvidia.com/gpu.shared": "1"}


def test_the_pool_profile_is_the_only_one_offered() -> None:
    with pytest.raises(WorkloadError, match="no 3g.20gb slices; it offers 1g.5gb"):
        slice_workload(azure([MIG1G], "mixed"), "mig1g", "3g.20gb")


def test_a_request_larger_than_a_node_is_refused_at_plan_time() -> None:
    # 8 GPUs x 7 slices = 56 per node: 57 can never be scheduled.
    stack = azure([MIG1G], "mixed")
    assert slice_workload(stack, "mig1g", "1g.5gb", count=56).limits == {"nvidia.com/mig-1g.5gb": "56"}
    with pytest.raises(WorkloadError, match="56x nvidia.com/mig-1g.5gb per node"):
        slice_workload(stack, "mig1g", "1g.5gb", count=57)


@pytest.mark.parametrize("count", [0, -1, 1.5])
def test_gpu_resources_are_whole_positive_numbers(count: object) -> None:
    with pytest.raises(WorkloadError, match="whole number"):
        slice_workload(azure([MIG1G], "single"), "mig1g", count=count)


def test_fail_requests_greater_than_one_is_honoured() -> None:
    with pytest.raises(WorkloadError, match="failRequestsGreaterThanOne"):
        slice_workload(azure([T4_SHARED], "none"), "tfour", count=2)


def test_unknown_pool_lists_the_pools() -> None:
    with pytest.raises(WorkloadError, match="no GPU pool named 'nope'; pools: mig1g"):
        slice_workload(azure([MIG1G], "single"), "nope")


def test_a_pool_with_several_resources_needs_a_profile() -> None:
    stack = load_stack(
        {
            "cloud": "aws",
            "cluster": {"name": "c", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
            "gpuPools": [{"name": "p4d", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}}],
            "gpuSoftware": {"installer": "gpu-operator", "migStrategy": "mixed"},
        }
    )
    with pytest.raises(WorkloadError, match="name the profile"):
        slice_workload(stack, "p4d")
    assert slice_workload(stack, "p4d", "3g.20gb", count=8).limits == {"nvidia.com/mig-3g.20gb": "8"}


@pytest.mark.parametrize("count", [True, False, 1.0, "1"], ids=["true", "false", "float", "str"])
def test_a_count_that_is_not_a_whole_number_is_refused(count) -> None:
    # bool is an int to Python: count=True used to become the limit "True", which Kubernetes refuses.
    with pytest.raises(WorkloadError, match="count must be a whole number"):
        slice_workload(azure([MIG1G], "single"), "mig1g", "1g.5gb", count=count)
