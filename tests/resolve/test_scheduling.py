"""The placement check: Kubernetes toleration and node-affinity rules, then NVIDIA daemonsets per pool.

The semantics tests follow the Kubernetes API reference (Toleration, NodeSelectorRequirement). The stack
tests use the repo's stack files and small configs; each negative test breaks one fact the check relies
on and expects the check to name the pool.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

import gpupools.resolve.scheduling as scheduling
from gpupools.charts.device_plugin import device_plugin_values
from gpupools.charts.gpu_operator import gpu_operator_values
from gpupools.config import read_stack_file
from gpupools.domain.stack import Stack
from gpupools.resolve.stack_loader import load_stack
from gpupools.catalog.labels import Taint
from gpupools.domain.stack import PLAIN_POD
from gpupools.resolve.scheduling import matches_affinity, placement_problems, placements, tolerates

ROOT = Path(__file__).resolve().parents[2]
GPU_TAINT = Taint("nvidia.com/gpu", "present", "NoSchedule")


# --- tolerations --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "toleration, tolerated",
    [
        ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}, True),
        ({"key": "nvidia.com/gpu", "operator": "Exists"}, True),  # empty effect matches every effect
        ({"key": "nvidia.com/gpu", "operator": "Exists", "value": "other"}, True),  # Exists ignores the value
        ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}, True),
        ({"key": "nvidia.com/gpu", "value": "present"}, True),  # operator defaults to Equal
        ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}, False),
        ({"key": "nvidia.com/gpu", "operator": "Equal", "effect": "NoSchedule"}, False),  # empty value != present
        ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, False),
        ({"key": "sku", "operator": "Exists"}, False),
        ({"operator": "Exists"}, True),  # empty key with Exists tolerates everything
        ({"operator": "Equal", "value": "present"}, False),
        ({"key": "CriticalAddonsOnly", "operator": "Exists"}, False),
    ],
)
def test_toleration_matching(toleration: dict[str, str], tolerated: bool) -> None:
    assert tolerates([toleration], [GPU_TAINT]) is tolerated


def test_every_blocking_taint_needs_a_toleration() -> None:
    other = Taint("sku", "gpu", "NoExecute")
    gpu_only = [{"key": "nvidia.com/gpu", "operator": "Exists"}]
    assert not tolerates(gpu_only, [GPU_TAINT, other])
    assert tolerates([*gpu_only, {"key": "sku", "operator": "Equal", "value": "gpu"}], [GPU_TAINT, other])
    assert tolerates([], [])


def test_prefer_no_schedule_does_not_block() -> None:
    assert tolerates([], [Taint("nvidia.com/gpu", "present", "PreferNoSchedule")])
    assert not tolerates([], [GPU_TAINT])


# --- node affinity ------------------------------------------------------------------------------------


def required(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": expressions} for expressions in terms]
            }
        }
    }


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, **({"values": list(values)} if values else {})}


LABELS = {"nvidia.com/gpu.present": "true", "gpupools.io/pool": "mig1g"}


@pytest.mark.parametrize(
    "affinity, matches",
    [
        (None, True),
        ({}, True),
        ({"nodeAffinity": {}}, True),
        (required([expr("nvidia.com/gpu.present", "In", "true")]), True),
        (required([expr("nvidia.com/gpu.present", "In", "false", "yes")]), False),
        (required([expr("feature.node.kubernetes.io/pci-10de.present", "In", "true")]), False),
        (required([expr("gpupools.io/pool", "NotIn", "other")]), True),
        (required([expr("gpupools.io/pool", "NotIn", "mig1g")]), False),
        (required([expr("absent", "NotIn", "x")]), True),  # NotIn matches nodes without the label
        (required([expr("gpupools.io/pool", "Exists")]), True),
        (required([expr("absent", "Exists")]), False),
        (required([expr("absent", "DoesNotExist")]), True),
        (required([expr("gpupools.io/pool", "DoesNotExist")]), False),
        # expressions of a term are ANDed, terms are ORed
        (required([expr("nvidia.com/gpu.present", "In", "true"), expr("absent", "Exists")]), False),
        (required([expr("absent", "Exists")], [expr("nvidia.com/gpu.present", "In", "true")]), True),
        (required(), False),  # no terms: matches no node
        (required([]), False),  # a term without expressions matches no node
    ],
)
def test_required_node_affinity(affinity: dict[str, Any] | None, matches: bool) -> None:
    assert matches_affinity(affinity, LABELS) is matches


def test_unsupported_affinity_operator_is_an_error_not_a_guess() -> None:
    with pytest.raises(ValueError, match="Gt"):
        matches_affinity(required([expr("gpupools.io/pool", "Gt", "1")]), LABELS)


# --- placement per stack ------------------------------------------------------------------------------


def stack_file(name: str) -> Stack:
    return load_stack(read_stack_file(ROOT / f"Pulumi.{name}.yaml").config)


def values_for(stack: Stack) -> dict[str, Any]:
    if stack.config.gpu_software.installer == "device-plugin":
        return device_plugin_values(stack)
    return gpu_operator_values(stack)


AKS_CLUSTER = {"name": "c", "resourceGroup": "rg", "location": "westus3", "systemPool": {"size": "Standard_D4s_v5"}}
MPS = {"mps": {"replicas": 4, "allowPrivilegedHostPID": True}}


def sharing_stack(gfd: bool) -> Stack:
    """AKS, device plugin: a MIG pool, a time-sliced T4 pool and an MPS A100 pool."""
    return load_stack(
        {
            "cloud": "azure",
            "cluster": AKS_CLUSTER,
            "gpuPools": [
                {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}},
                {"name": "tfour", "size": "Standard_NC64as_T4_v3", "sharing": {"timeSlicing": {"replicas": 4}}},
                {"name": "mps", "size": "Standard_NC24ads_A100_v4", "sharing": MPS},
            ],
            "gpuSoftware": {"installer": "device-plugin", "migStrategy": "single", "gfd": gfd},
        }
    )


def operator_stack(gfd: bool = True) -> Stack:
    """EKS, GPU Operator: a custom MIG layout, an MPS H100 and an L4 pool without MIG-capable GPUs."""
    return load_stack(
        {
            "cloud": "aws",
            "cluster": {"name": "c", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
            "gpuPools": [
                {"name": "custom", "size": "p4d.24xlarge", "mig": {"layout": {"1g.5gb": 3, "2g.10gb": 1}}},
                {"name": "mps", "size": "p5.4xlarge", "sharing": MPS},
                {"name": "lfour", "size": "g6.xlarge"},
            ],
            "gpuSoftware": {"installer": "gpu-operator", "migStrategy": "mixed", "gfd": gfd},
        }
    )


def aks_operator_stack() -> Stack:
    """AKS, GPU Operator over the AKS driver: AKS applies MIG1g, the MIG manager must stay away."""
    return load_stack(
        {
            "cloud": "azure",
            "cluster": AKS_CLUSTER,
            "gpuPools": [{"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}}],
            "gpuSoftware": {"installer": "gpu-operator", "migStrategy": "single"},
        }
    )


STACKS = {
    "dev": lambda: stack_file("dev"),
    "eks": lambda: stack_file("eks"),
    "existing": lambda: stack_file("existing"),
    "sharing": lambda: sharing_stack(gfd=True),
    "sharing-without-gfd": lambda: sharing_stack(gfd=False),
    "operator": operator_stack,
    "aks-operator": aks_operator_stack,
}


def rows(stack: Stack, values: dict[str, Any], pool: str, daemonset: str) -> list[scheduling.Placement]:
    return [row for row in placements(stack, values) if row.pool == pool and row.daemonset == daemonset]


def row(stack: Stack, values: dict[str, Any], pool: str, daemonset: str) -> scheduling.Placement:
    (found,) = rows(stack, values, pool, daemonset)
    return found


@pytest.mark.parametrize("name", sorted(STACKS))
def test_every_pool_is_served_and_reserved(name: str) -> None:
    stack = STACKS[name]()
    values = values_for(stack)
    assert placement_problems(stack, values) == []
    installer = stack.config.gpu_software.installer
    plugin = "nvidia-device-plugin" if installer == "device-plugin" else "nvidia-device-plugin-daemonset"
    for pool in stack.pools:
        assert row(stack, values, pool.name, plugin).schedules
        assert not row(stack, values, pool.name, PLAIN_POD).schedules


def test_device_plugin_chart_daemonsets_reach_every_pool() -> None:
    stack = sharing_stack(gfd=True)
    values = values_for(stack)
    for pool in ("mig1g", "tfour", "mps"):
        for daemonset in ("nvidia-device-plugin", "gpu-feature-discovery", "nfd-worker"):
            assert row(stack, values, pool, daemonset).schedules, (pool, daemonset)


@pytest.mark.parametrize("gfd", [True, False])
def test_mps_daemon_runs_only_on_mps_pools(gfd: bool) -> None:
    stack = sharing_stack(gfd)
    values = values_for(stack)
    # Without GFD nothing else sets nvidia.com/mps.capable: the pool's own label is what places the daemon.
    assert {r.pool for r in placements(stack, values) if r.daemonset == "mps-control-daemon" and r.schedules} == {"mps"}


def test_operator_daemonsets_reach_every_pool() -> None:
    stack = operator_stack()
    values = values_for(stack)
    everywhere = (
        "nvidia-operator-validator",
        "nvidia-device-plugin-daemonset",
        "gpu-feature-discovery",
        "nvidia-dcgm-exporter",
        "node-feature-discovery-worker",
    )
    for pool in ("custom", "mps", "lfour"):
        for daemonset in everywhere:
            assert row(stack, values, pool, daemonset).schedules, (pool, daemonset)
    # Driver and toolkit come with the EKS NVIDIA AMI: the operator does not deploy them.
    assert not rows(stack, values, "custom", "nvidia-driver-daemonset")
    assert not rows(stack, values, "custom", "nvidia-container-toolkit-daemonset")


def test_operator_mig_manager_goes_where_gfd_finds_mig_capable_gpus() -> None:
    stack = operator_stack()
    values = values_for(stack)
    running = {r.pool for r in placements(stack, values) if r.daemonset == "nvidia-mig-manager" and r.schedules}
    assert running == {"custom", "mps"}  # A100 and H100; the L4 cannot do MIG
    assert {
        r.pool
        for r in placements(stack, values)
        if r.daemonset == "nvidia-device-plugin-mps-control-daemon" and r.schedules
    } == {"mps"}


def test_mig_manager_stays_off_pools_whose_mig_profile_aks_set() -> None:
    stack = aks_operator_stack()
    forced = {**values_for(stack), "migManager": {"enabled": True}}  # even if someone turns it on
    manager = row(stack, forced, "mig1g", "nvidia-mig-manager")
    assert manager.ok and not manager.schedules
    assert "nvidia.com/gpu.deploy.mig-manager=true" in manager.reason
    # Without our deploy label the operator would add it (the A100 is MIG-capable) and the check says so.
    pool = stack.pools[0]
    unlabelled = dataclasses.replace(
        pool, labels={k: v for k, v in pool.labels.items() if k != "nvidia.com/gpu.deploy.mig-manager"}
    )
    (problem,) = placement_problems(Stack(stack.config, [unlabelled]), forced)
    assert problem.startswith("pool mig1g: nvidia-mig-manager runs on its nodes but must not")


# --- the check can fail -------------------------------------------------------------------------------


def with_taint(stack: Stack, taints: tuple[Taint, ...]) -> Stack:
    return Stack(stack.config, [dataclasses.replace(pool, taints=taints) for pool in stack.pools])


def test_device_plugin_without_gpu_toleration_misses_every_pool() -> None:
    stack = stack_file("dev")
    values = {**values_for(stack), "tolerations": []}
    problems = placement_problems(stack, values)
    assert any(
        p.startswith("pool mig1g: nvidia-device-plugin does not run") and "nvidia.com/gpu=present:NoSchedule" in p
        for p in problems
    )


def test_operator_without_gpu_toleration_misses_every_pool() -> None:
    stack = stack_file("eks")
    values = {**values_for(stack), "daemonsets": {"tolerations": []}}
    problems = placement_problems(stack, values)
    assert any(p.startswith("pool p4d-balanced: nvidia-device-plugin-daemonset does not run") for p in problems)


def test_affinity_our_pools_do_not_match_is_reported() -> None:
    stack = stack_file("dev")
    affinity = required([expr("feature.node.kubernetes.io/pci-10de.present", "In", "true")])
    values = {**values_for(stack), "affinity": affinity, "gfd": {"enabled": False}}  # no NFD to add that label
    assert any("nvidia-device-plugin does not run" in p and "affinity" in p for p in placement_problems(stack, values))


def test_taint_value_other_than_present_loses_the_device_plugin_charts_nfd_worker() -> None:
    stack = with_taint(stack_file("dev"), (Taint("nvidia.com/gpu", "true", "NoSchedule"),))
    values = values_for(stack)
    worker = row(stack, values, "mig1g", "nfd-worker")
    assert not worker.schedules and not worker.ok
    assert row(stack, values, "mig1g", "nvidia-device-plugin").ok  # the plugin tolerates any value


def test_untainted_pool_would_take_ordinary_pods() -> None:
    stack = with_taint(stack_file("dev"), ())
    assert placement_problems(stack, values_for(stack)) == [
        "pool mig1g: a pod without tolerations can be scheduled on its GPU nodes "
        "(the nodes carry no NoSchedule/NoExecute taint)"
    ]


def test_operator_mig_without_gfd_still_gets_its_mig_manager_from_the_pool_label(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stack = operator_stack(gfd=False)
    assert placement_problems(stack, values_for(stack)) == []
    # Without GFD nothing else marks the node MIG-capable, so the pool's deploy label is what makes it work.
    custom = next(p for p in stack.pools if p.name == "custom")
    monkeypatch.delitem(custom.labels, "nvidia.com/gpu.deploy.mig-manager")
    problems = placement_problems(stack, values_for(stack))
    assert any(p.startswith("pool custom: nvidia-mig-manager does not run") for p in problems)


def test_mps_pool_without_its_label_gets_no_mps_daemon(monkeypatch: pytest.MonkeyPatch) -> None:
    stack = sharing_stack(gfd=False)
    mps = next(p for p in stack.pools if p.name == "mps")
    monkeypatch.delitem(mps.labels, "nvidia.com/mps.capable")
    problems = placement_problems(stack, values_for(stack))
    assert any(p.startswith("pool mps: mps-control-daemon does not run") for p in problems)
