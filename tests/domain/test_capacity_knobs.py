"""AKS maxPods caps the slices pods can use; the placement check runs in load_stack; Spot pools' cloud taint.

Facts: AKS defaults to 30 pods per node on Azure CNI and 110 on kubenet and allows 10..250 (docs/sources.md);
an ND96asr_v4 (8x A100 40GB) with MIG1g advertises 8 x 7 = 56 slices (AKS MIG page), 112 with time-slicing x2.
"""

from __future__ import annotations

import copy

import pytest

from gpupools.catalog.clouds import AKS_SYSTEM_DAEMONSET_PODS
from gpupools.domain.capacity import stack_capacity, usable_resources
from gpupools.charts.values import chart_values
from gpupools.cli.render import capacity_lines
from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from gpupools.catalog.labels import AKS_SPOT_TAINT, GPU_TAINT
from gpupools.resolve.scheduling import placement_problems
from gpupools.domain.workloads import slice_workload

from support.base_configs import AZURE

# The device plugin chart with GFD puts three daemonsets on a GPU node: device plugin, GFD and the NFD worker.
NVIDIA_DAEMONSETS = 3


def stack_with(pool: dict | None = None, **software):
    raw = copy.deepcopy(AZURE)
    raw["gpupools:gpuPools"][0].update(pool or {})
    raw["gpupools:gpuSoftware"].update(software)
    return load_stack(raw)


def test_default_max_pods_fits_every_slice_and_daemonset():
    stack = stack_with()
    (pool,) = stack.pools
    assert pool.daemonset_pods == NVIDIA_DAEMONSETS + AKS_SYSTEM_DAEMONSET_PODS
    assert pool.max_pods >= 56 + pool.daemonset_pods > 30  # more than Azure CNI's default of 30
    (cap,) = stack_capacity(stack.pools)
    assert cap.per_node == cap.advertised == {"nvidia.com/gpu": 56}


def test_time_slicing_doubles_slices_and_max_pods_follows():
    stack = stack_with({"sharing": {"timeSlicing": {"replicas": 2}}})
    (pool,) = stack.pools
    assert pool.max_pods >= 112 + pool.daemonset_pods
    assert stack_capacity(stack.pools)[0].per_node == {"nvidia.com/gpu": 112}


def test_default_max_pods_is_capped_at_the_aks_maximum_and_slices_are_cut():
    stack = stack_with({"sharing": {"timeSlicing": {"replicas": 8}}})  # 448 slices
    (pool,) = stack.pools
    assert pool.max_pods == 250
    (cap,) = stack_capacity(stack.pools)
    assert cap.advertised == {"nvidia.com/gpu": 448}
    assert cap.per_node == {"nvidia.com/gpu": 250 - pool.daemonset_pods}
    assert any("maxPods 250" in w and "448" in w for w in stack.warnings)


def test_configured_max_pods_is_honoured_with_a_warning_on_an_existing_cluster():
    raw = copy.deepcopy(AZURE)
    raw["gpupools:cluster"] = {"name": "shared-aks", "create": False, "resourceGroup": "platform-rg"}
    raw["gpupools:gpuPools"][0]["maxPods"] = 30  # Azure CNI's default
    stack = load_stack(raw)
    (pool,) = stack.pools
    assert pool.max_pods == 30
    (cap,) = stack_capacity(stack.pools)
    assert cap.per_node == {"nvidia.com/gpu": 30 - pool.daemonset_pods} and cap.total == cap.per_node
    assert cap.to_json()["maxPods"] == 30 and cap.to_json()["advertisedPerNode"] == {"nvidia.com/gpu": 56}
    assert any("mig1g" in w and "56 advertised" in w for w in stack.warnings)
    line = capacity_lines([cap], [])[1]
    assert "30 (13 ds)" in line and "17x nvidia.com/gpu (of 56)" in line


def test_max_pods_without_room_for_gpu_pods_is_refused():
    with pytest.raises(ConfigError) as caught:
        stack_with({"maxPods": 13, "count": 3})  # 3 nodes: AKS's 30 pods per pool
    assert any(p.field == "gpupools:gpuPools[0].maxPods" and "no room" in p.message for p in caught.value.problems)


@pytest.mark.parametrize("value", [9, 251])
def test_max_pods_outside_aks_range(value):
    with pytest.raises(ConfigError) as caught:
        stack_with({"maxPods": value})
    assert [p.field for p in caught.value.problems] == ["gpupools:gpuPools[0].maxPods"]


def test_room_is_shared_in_proportion_across_resources():
    advertised = {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8}
    assert usable_resources(advertised, 16) == {
        "nvidia.com/mig-1g.5gb": 8,
        "nvidia.com/mig-2g.10gb": 4,
        "nvidia.com/mig-3g.20gb": 4,
    }
    assert sum(usable_resources(advertised, 7).values()) == 7
    assert usable_resources(advertised, None) == advertised == usable_resources(advertised, 32)


def test_workload_count_is_checked_against_usable_slices():
    raw = copy.deepcopy(AZURE)
    raw["gpupools:gpuPools"][0].update(maxPods=20, count=3)  # 3 nodes: AKS's 30 pods per pool
    stack = load_stack(raw)
    slice_workload(stack, "mig1g", count=7)
    with pytest.raises(ValueError):
        slice_workload(stack, "mig1g", count=8)


def test_spot_pool_carries_the_aks_taint_and_the_charts_tolerate_it():
    for installer in ("device-plugin", "gpu-operator"):
        software = {"installer": installer}
        stack = stack_with({"priority": "Spot"}, **software)
        (pool,) = stack.pools
        assert pool.taints == (GPU_TAINT,)  # what we ask AKS to set
        assert pool.cloud_taints == (AKS_SPOT_TAINT,)
        assert str(AKS_SPOT_TAINT) == "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
        assert placement_problems(stack, chart_values(stack)) == []
    workload = slice_workload(stack_with({"priority": "Spot"}), "mig1g")
    assert {
        "key": "kubernetes.azure.com/scalesetpriority",
        "operator": "Exists",
        "effect": "NoSchedule",
    } in workload.tolerations


def test_misplaced_daemonsets_are_refused_by_load_stack(monkeypatch):
    import gpupools.resolve.daemonsets as rules

    monkeypatch.setattr(rules, "chart_values", lambda stack: {**chart_values(stack), "tolerations": []})
    with pytest.raises(ConfigError) as caught:
        stack_with()
    assert caught.value.problems and all(p.field == "gpupools:gpuSoftware" for p in caught.value.problems)
    assert any("nvidia-device-plugin does not run" in p.message for p in caught.value.problems)
