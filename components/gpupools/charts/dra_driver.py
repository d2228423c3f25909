"""Values for NVIDIA's DRA driver chart (dra-driver-nvidia-gpu 0.4.1), and for the GPU Operator beside it.

What we set and why (docs in ``../shared/reference/dra-driver-nvidia-gpu/docs``, quoted in docs/sources.md):

* ``nvidiaDriverRoot``: ``/`` where the node image installs the driver (AKS, EKS), ``/run/nvidia/driver`` where
  the GPU Operator does (install.md: "Incorrect values are a common error during install").
* ``gpuResourcesEnabledOverride: true``: the chart refuses GPU allocation without it (templates/validation.yaml),
  because "this DRA driver cannot be deployed alongside the standard GPU device plugin on the same node"; the
  placement check proves no device plugin reaches a node the kubelet plugin serves (resolve.dra_rules).
* ``resources.computeDomains.enabled: false``: ComputeDomains need Multi-Node NVLink, which no catalog size has.
* ``kubeletPlugin.tolerations``/``affinity``: the chart's GPU toleration and affinity terms kept, our pools'
  ``nvidia.com/gpu.present`` term first, plus the cloud's taints (AKS Spot), as for the device plugin.
* ``featureGates``: only the alpha gates the pools' sharing modes need, and only those the stack named in
  ``gpuSoftware.draAlphaGates`` (resolve.dra_rules refuses the rest). Static MIG needs none (mig.md).

MIG layouts that AKS does not apply at pool creation are applied by the GPU Operator's MIG manager: NVIDIA's
prerequisites page installs "the GPU Operator with the NVIDIA Kubernetes Device Plugin disabled" beside the
driver, so ``operator_beside_dra_values`` is the operator's values with ``devicePlugin.enabled: false``.

The kubelet plugin discovers MIG devices once, at start ("Discovery is a point-in-time snapshot", concepts-gpu-
allocation.md), so where the MIG manager cuts a pool's layout the plugin must start after the cut and restart after
each re-cut. Two values do it (sources in docs/sources.md):

* ``kubeletPlugin.nodeSelector: {nvidia.com/gpu.deploy.client: "true"}``: the GPU Operator (v26.7.0) labels GPU nodes
  so; the MIG manager (v0.15.0) flips the label to ``paused-for-mig-change`` before a change, so the DaemonSet
  controller removes the plugin, waits for DaemonSet pods with that key *in their nodeSelector* (not affinity) to
  leave, cuts, and flips it back to ``true``, which starts the plugin again on the new layout;
* a required affinity term that admits the nodes of those pools only with ``nvidia.com/mig.config.state=success``
  (a fresh node carries the client label before the MIG manager first runs); the chart's other terms stay, each
  closed to those pools, because Helm replaces lists.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from ..catalog.chart_defaults import DRA_DRIVER_DEFAULTS
from ..catalog.dra_driver import HOST_DRIVER_ROOT, OPERATOR_DRIVER_ROOT, SHARING_GATES
from ..catalog.labels import (
    GPU_CLIENT_DEPLOY_LABEL,
    GPU_PRESENT_LABEL,
    GPU_TAINT,
    MIG_CONFIG_STATE_LABEL,
    MIG_CONFIG_STATE_READY,
    POOL_LABEL,
)
from ..domain.stack import Stack
from .device_plugin import POOL_AFFINITY_TERM, cloud_taint_tolerations
from .gpu_operator import gpu_operator_values
from .mig_parted import operator_mig_pools


def dra_driver_values(stack: Stack) -> dict[str, Any]:
    """Helm values for the DRA driver chart, from the stack's GPU software and pools."""
    values: dict[str, Any] = {
        "nvidiaDriverRoot": OPERATOR_DRIVER_ROOT
        if stack.config.gpu_software.driver == "operator"
        else HOST_DRIVER_ROOT,
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        "kubeletPlugin": {
            "tolerations": [GPU_TAINT.kubernetes_toleration(), *cloud_taint_tolerations(stack)],
            "affinity": _affinity(stack),
        },
    }
    if operator_mig_pools(stack):
        values["kubeletPlugin"]["nodeSelector"] = {GPU_CLIENT_DEPLOY_LABEL: "true"}
    gates = needed_gates(stack)
    if gates:
        values["featureGates"] = {gate: True for gate in gates}
    return values


def needed_gates(stack: Stack) -> list[str]:
    """The driver's alpha gates the pools' sharing modes need, in a stable order."""
    needed = set()
    for pool in stack.pools:
        sharing = pool.sharing
        if sharing is not None:
            needed.add(SHARING_GATES["mps" if sharing.mps is not None else "timeSlicing"])
    return sorted(needed)


def operator_beside_dra(stack: Stack) -> bool:
    """The GPU Operator runs beside the DRA driver: it installs the driver, or its MIG manager cuts some pool."""
    software = stack.config.gpu_software
    return software.chosen_installer.uses_dra and (software.driver == "operator" or bool(operator_mig_pools(stack)))


def operator_beside_dra_values(stack: Stack) -> dict[str, Any]:
    """The GPU Operator's values with its device plugin off: only the DRA driver publishes the GPUs."""
    values = gpu_operator_values(stack)
    values["devicePlugin"] = {"enabled": False}
    values["dcgmExporter"] = {"enabled": False}  # metrics.dcgmExporter installs the dcgm-exporter chart instead
    return values


def _affinity(stack: Stack) -> dict[str, Any]:
    """The chart's terms (ours first); with MIG-manager pools, those pools' nodes only once their layout is cut."""
    chart_terms = DRA_DRIVER_DEFAULTS.values["kubeletPlugin"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    terms = [deepcopy(POOL_AFFINITY_TERM), *(deepcopy(term) for term in chart_terms if term != POOL_AFFINITY_TERM)]
    cut = sorted(pool.name for pool in operator_mig_pools(stack))
    if cut:
        elsewhere = {"key": POOL_LABEL, "operator": "NotIn", "values": cut}
        terms = [
            {
                "matchExpressions": [
                    {"key": POOL_LABEL, "operator": "In", "values": cut},
                    {"key": GPU_PRESENT_LABEL, "operator": "In", "values": ["true"]},
                    {"key": MIG_CONFIG_STATE_LABEL, "operator": "In", "values": [MIG_CONFIG_STATE_READY]},
                ]
            },
            *({"matchExpressions": [*term["matchExpressions"], dict(elsewhere)]} for term in terms),
        ]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
