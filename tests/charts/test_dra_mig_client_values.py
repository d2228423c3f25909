"""The DRA kubelet plugin as a client of the GPU Operator's MIG manager, on the values alone (issue 24, item 1).

Expected values are the ones mig-parted v0.15.0 and GPU Operator v26.7.0 act on (docs/sources.md): the MIG manager
waits for DaemonSet pods with ``nvidia.com/gpu.deploy.client`` in their nodeSelector, and writes
``nvidia.com/mig.config.state=success`` once the layout is cut. The node labels below are written out by hand.
"""

from __future__ import annotations

from typing import Any

from gpupools.charts.dra_driver import dra_driver_values
from gpupools.resolve.scheduling import matches_affinity
from gpupools.resolve.stack_loader import load_stack
from support.dra_stacks import MPS, P4D_BALANCED

CHART_TERM_KEYS = {
    "feature.node.kubernetes.io/pci-10de.present",
    "feature.node.kubernetes.io/pci-0302_10de.present",
    "feature.node.kubernetes.io/pci-0300_10de.present",
    "feature.node.kubernetes.io/cpu-model.vendor_id",
    "nvidia.com/gpu.present",
}


def _plugin(stack: dict[str, Any]) -> dict[str, Any]:
    return dra_driver_values(load_stack(stack))["kubeletPlugin"]


def test_a_mig_manager_pool_makes_the_plugin_a_gpu_client_by_nodeselector() -> None:
    assert _plugin(P4D_BALANCED)["nodeSelector"] == {"nvidia.com/gpu.deploy.client": "true"}


def test_the_plugin_waits_for_the_mig_state_on_the_cut_pool_only() -> None:
    affinity = _plugin(P4D_BALANCED)["affinity"]
    node = {"gpupools.io/pool": "balanced", "nvidia.com/gpu.present": "true", "nvidia.com/gpu.deploy.client": "true"}
    for state in (None, "pending", "rebooting", "failed"):
        labels = dict(node) if state is None else {**node, "nvidia.com/mig.config.state": state}
        assert not matches_affinity(affinity, labels), state
    assert matches_affinity(affinity, {**node, "nvidia.com/mig.config.state": "success"})
    # Nodes the MIG manager does not cut keep every alternative of the chart's default affinity (Helm replaces lists).
    for key, value in [
        ("nvidia.com/gpu.present", "true"),
        ("feature.node.kubernetes.io/pci-10de.present", "true"),
        ("feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA"),
    ]:
        assert matches_affinity(affinity, {key: value})
        assert matches_affinity(affinity, {"gpupools.io/pool": "other", key: value})
        assert not matches_affinity(affinity, {"gpupools.io/pool": "balanced", key: value})
    keys = {
        e["key"]
        for t in affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        for e in t["matchExpressions"]
    }
    assert CHART_TERM_KEYS <= keys


def test_without_a_mig_manager_pool_the_plugin_needs_no_client_label() -> None:
    plugin = _plugin(MPS)
    assert "nodeSelector" not in plugin
    assert matches_affinity(plugin["affinity"], {"nvidia.com/gpu.present": "true"})
