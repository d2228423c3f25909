"""AKS rules of issue 16: the maxPods floor, autoscaled pools without nvidia.com/gpu, the overlay pod CIDR.

Expected values come from Microsoft's and the cluster autoscaler's documents cited in docs/sources.md.
"""

from __future__ import annotations

import pytest

from gpupools.resolve.stack_loader import load_stack

from support.base_configs import AZURE, config, messages_at

WHOLE = {"name": "whole", "size": "Standard_NC24ads_A100_v4", "mig": None}


# --- 7. every AKS node pool has room for 30 pods (concepts-network-ip-address-planning.md; Azure/AKS#1422) ---------
@pytest.mark.parametrize(
    "pool", [{"count": 1}, {"count": 2, "autoscaling": {"minCount": 1, "maxCount": 3}}, {"count": 0}]
)
def test_computed_max_pods_of_a_one_node_pool_has_room_for_30_pods(pool):
    (resolved,) = load_stack(config(AZURE, {**WHOLE, **pool})).pools
    assert resolved.max_pods >= 30


def test_computed_max_pods_of_larger_pools_keeps_aks_floor():
    (resolved,) = load_stack(config(AZURE, {**WHOLE, "count": 3})).pools
    assert resolved.max_pods * 3 >= 30 and resolved.max_pods >= 10


@pytest.mark.parametrize(
    "pool",
    [
        {"count": 1, "maxPods": 29},
        {"count": 2, "maxPods": 14},
        {"count": 3, "maxPods": 20, "autoscaling": {"minCount": 1, "maxCount": 3}},
    ],
)
def test_user_max_pods_under_the_pool_floor_is_refused_with_the_source(pool):
    (message,) = messages_at(config(AZURE, {**WHOLE, **pool}), "gpupools:gpuPools[0].maxPods")
    assert "30 pods" in message and "allowed:" in message


def test_user_max_pods_of_twenty_on_three_nodes_is_accepted():
    raw = config(AZURE, {**WHOLE, "count": 3, "maxPods": 20})
    assert load_stack(raw).pools[0].max_pods == 20


# --- 3. autoscaled AKS pools without nvidia.com/gpu look unready to the autoscaler (gpu_processor.go, FAQ) ------------
AUTOSCALED = {"autoscaling": {"minCount": 1, "maxCount": 4}}
MIXED = {"installer": "gpu-operator", "migStrategy": "mixed"}


def unready_warnings(raw: dict) -> list[str]:
    return [w for w in load_stack(raw).warnings if "counts such a node without nvidia.com/gpu as unready" in w]


@pytest.mark.parametrize(
    "pool, software",
    [
        ({"mig": {"profile": "MIG1g"}}, MIXED),  # nvidia.com/mig-1g.10gb only
        ({**WHOLE, "sharing": {"timeSlicing": {"replicas": 4, "renameByDefault": True}}}, {}),  # nvidia.com/gpu.shared
    ],
)
def test_autoscaled_aks_pool_without_nvidia_gpu_is_warned(pool, software):
    (warning,) = unready_warnings(config(AZURE, {**pool, **AUTOSCALED}, gpuSoftware=software))
    assert "kubernetes.azure.com/accelerator" in warning and "CA stops all operations" in warning


@pytest.mark.parametrize(
    "pool, software",
    [
        ({"mig": {"profile": "MIG1g"}}, {}),  # single: every MIG device is nvidia.com/gpu
        ({**WHOLE, "sharing": {"timeSlicing": {"replicas": 4}}}, {}),
        ({"mig": {"profile": "MIG1g"}, "count": 2}, MIXED),  # not autoscaled: no autoscaler judges it
    ],
)
def test_pools_with_nvidia_gpu_or_without_autoscaling_are_not_warned(pool, software):
    bounds = {} if "count" in pool else AUTOSCALED
    assert unready_warnings(config(AZURE, {**pool, **bounds}, gpuSoftware=software)) == []


# --- 6. the overlay pod CIDR /16 gives each node a /24: at most 256 nodes (ip-address-planning) --------------------
# The base config's system pool has the default 2 nodes; one more node for an upgrade ("n + 1").
def _pools(*pools: dict) -> dict:
    raw = config(AZURE)
    raw["gpupools:gpuPools"] = [
        {"name": f"p{i}", "size": "Standard_ND96asr_v4", **pool} for i, pool in enumerate(pools)
    ]
    return raw


def test_300_gpu_nodes_do_not_fit_the_pod_cidr():
    (message,) = messages_at(
        _pools({"count": 150, "rotation": "recreate"}, {"count": 150, "rotation": "recreate"}), "gpupools:gpuPools"
    )
    assert "303 nodes" in message and "256" in message and "/24" in message


def test_surge_pools_count_twice():
    # 127 nodes, created before the old generation is deleted: 254 + 2 system + 1 upgrade = 257 > 256.
    (message,) = messages_at(_pools({"count": 127, "rotation": "surge"}), "gpupools:gpuPools")
    assert "257 nodes" in message


def test_autoscaled_pools_count_at_max_count():
    raw = _pools({"count": 1, "rotation": "recreate", "autoscaling": {"minCount": 1, "maxCount": 254}})
    assert messages_at(raw, "gpupools:gpuPools")  # 254 + 2 + 1 = 257


def test_the_largest_stack_that_fits_is_accepted():
    raw = _pools({"count": 126, "rotation": "surge"}, {"count": 1, "rotation": "recreate"})  # 252 + 1 + 2 + 1 = 256
    assert len(load_stack(raw).pools) == 2


def test_existing_clusters_are_not_counted():
    raw = _pools({"count": 150, "rotation": "recreate"}, {"count": 150, "rotation": "recreate"})
    raw["gpupools:cluster"].update(create=False)
    raw["gpupools:cluster"].pop("systemPool")
    raw["gpupools:cluster"].pop("location")
    assert len(load_stack(raw).pools) == 2
