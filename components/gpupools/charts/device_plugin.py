"""Values for the standalone NVIDIA device plugin chart (0.20.0).

Set here: what the chart cannot guess (MIG strategy, GFD, per-pool sharing configs) and the placement
of its pods (tolerations, affinity), written out even where they equal the chart defaults so that the
values alone say which nodes the plugin serves, and the placement check verifies exactly that.
Everything else keeps the chart default.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from ..catalog.chart_defaults import DEVICE_PLUGIN_DEFAULTS
from ..catalog.labels import GPU_PRESENT_LABEL, GPU_TAINT, Taint
from ..domain.stack import Stack
from .device_plugin_config import DEFAULT_CONFIG, device_plugin_configs, sharing_pools

# Our pools carry nvidia.com/gpu.present=true, so the plugin reaches them without NFD.
POOL_AFFINITY_TERM: dict[str, list[dict[str, Any]]] = {
    "matchExpressions": [{"key": GPU_PRESENT_LABEL, "operator": "In", "values": ["true"]}]
}


def device_plugin_values(stack: Stack) -> dict[str, Any]:
    """Helm values for the device plugin chart, from the stack's GPU software and pools."""
    software = stack.config.gpu_software
    values: dict[str, Any] = {
        "migStrategy": software.mig_strategy,
        "gfd": {"enabled": software.gfd},
        "tolerations": _tolerations(stack),
        "affinity": _affinity(),
    }
    cloud = cloud_taint_tolerations(stack)
    if cloud and software.gfd:
        # The NFD worker (deployed with GFD) must reach Spot nodes too; keep the chart's own tolerations.
        nfd_defaults = DEVICE_PLUGIN_DEFAULTS.values["nfd"]["worker"]["tolerations"]
        values["nfd"] = {"worker": {"tolerations": [*deepcopy(nfd_defaults), *cloud]}}
    if sharing_pools(stack):
        values["config"] = {"map": device_plugin_configs(stack), "default": DEFAULT_CONFIG}
    return values


def _tolerations(stack: Stack) -> list[dict[str, str]]:
    """The chart's default tolerations, kept explicitly (the GPU taint with ``Exists``), plus the cloud's taints."""
    return [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        GPU_TAINT.kubernetes_toleration(),
        *cloud_taint_tolerations(stack),
    ]


def cloud_taint_tolerations(stack: Stack) -> list[dict[str, str]]:
    """One toleration per taint the cloud puts on some pool (AKS Spot), so the NVIDIA daemonsets reach those nodes."""
    taints: list[Taint] = []
    for pool in stack.pools:
        taints += [taint for taint in pool.cloud_taints if taint not in taints]
    return [taint.kubernetes_toleration() for taint in taints]


def _affinity() -> dict[str, Any]:
    """Required node affinity: our pools' label, or any of the chart's NFD-based terms."""
    chart_terms = DEVICE_PLUGIN_DEFAULTS.values["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    terms = [deepcopy(POOL_AFFINITY_TERM), *(deepcopy(term) for term in chart_terms if term != POOL_AFFINITY_TERM)]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
