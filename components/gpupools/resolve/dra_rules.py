"""Rules of ``gpuSoftware.installer: dra-driver``: what NVIDIA's DRA driver for GPUs documents it needs or cannot do.

Each refusal quotes its source in docs/sources.md (the driver's docs at ``../shared/reference/dra-driver-nvidia-gpu``):

* Kubernetes below the driver's minimum (prerequisites.md);
* a sharing mode whose driver feature gate is alpha, unless named in ``gpuSoftware.draAlphaGates``
  (reference-feature-gates.md, guides on time-slicing and MPS); time-slicing of MIG devices, which "has no effect"
  (mig.md);
* (a MIG-enabled GPU that no layout partitions, which "strands the GPU" (concepts-gpu-allocation.md), cannot be
  configured: a layout needs a device (config shape), AKS profiles fill the GPU, and the MIG manager beside the
  driver keeps MIG off on MIG-capable pools without ``mig``);
* the device plugin and the DRA kubelet plugin both reaching one node (helm values reference, KEP 5004), from the
  placement rows over the real chart values.

Warnings: MPS pools (the driver's per-claim MPS control daemon runs privileged with hostPID,
``templates/mps-control-daemon.tmpl.yaml``), pools the cluster autoscaler must scale from zero (its AWS and Azure
providers build no ResourceSlices for template nodes), and ``draAlphaGates`` named but unused.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.chart_defaults import ChartDefaults
from ..catalog.dra_driver import MIN_KUBERNETES_MINOR, MIN_KUBERNETES_PATCH, SHARING_GATES
from ..config.errors import Findings, Problem, field_path
from ..config.models import StackConfig
from ..domain.node_templates import DRA_FROM_ZERO
from ..domain.stack import Placement, Stack

DEVICE_PUBLISHERS = ("device-plugin", "dra-kubelet-plugin")


def gates_elsewhere_findings(config: StackConfig) -> Findings:
    """The stack-file rule of an installer without DRA: no ``draAlphaGates``."""
    software, found = config.gpu_software, Findings()
    if software.dra_alpha_gates:
        found.problems.append(
            Problem(
                field_path("gpuSoftware", "draAlphaGates"),
                f"is for installer dra-driver; installer is {software.installer} (allowed: remove it)",
            )
        )
    return found


def config_findings(config: StackConfig) -> Findings:
    """The stack-file rules of the DRA installer (``resolve.installer_rules`` attaches them to it)."""
    software, found = config.gpu_software, Findings()
    cluster = config.cluster
    if cluster is not None and int(cluster.kubernetes_version.split(".")[1]) < MIN_KUBERNETES_MINOR:
        found.problems.append(
            Problem(
                field_path("cluster", "kubernetesVersion"),
                f"'{cluster.kubernetes_version}' is below what NVIDIA's DRA driver needs (Kubernetes "
                f"{MIN_KUBERNETES_PATCH} or later, dra-driver-nvidia-gpu prerequisites); allowed: "
                f"1.{MIN_KUBERNETES_MINOR} or later",
            )
        )
    used: set[str] = set()
    for index, pool in enumerate(config.gpu_pools):
        if pool is None:
            continue
        path = field_path("gpuPools", index)
        if pool.sharing is None:
            continue
        key = "mps" if pool.sharing.mps is not None else "timeSlicing"
        gate = SHARING_GATES[key]
        used.add(gate)
        if key == "timeSlicing" and pool.mig is not None:
            found.problems.append(
                Problem(
                    f"{path}.sharing.timeSlicing",
                    "time-slicing has no effect on MIG devices through the DRA driver: "
                    '"Setting `strategy: TimeSlicing` in a MigDeviceConfig is accepted without error but has no '
                    'effect on hardware" '
                    "(dra-driver-nvidia-gpu time-slicing guide); allowed: no sharing on MIG pools, or time-slicing "
                    "on a pool without mig",
                )
            )
        elif gate not in software.dra_alpha_gates:
            found.problems.append(
                Problem(
                    f"{path}.sharing.{key}",
                    f"needs the DRA driver's alpha feature gate {gate} (default false); "
                    f"allowed: name it in gpuSoftware.draAlphaGates to accept an alpha "
                    "feature, or remove sharing",
                )
            )
    for pool in config.gpu_pools:
        if pool is not None and pool.sharing is not None and pool.sharing.mps is not None:
            found.warnings.append(
                f"pool {pool.name}: MPS: the DRA driver starts one MPS control daemon per shared claim, a "
                "Deployment on the claim's node that runs privileged with hostPID (allowPrivilegedHostPID)"
            )
    for gate in software.dra_alpha_gates:
        if gate not in used:
            found.warnings.append(f"gpuSoftware.draAlphaGates: {gate} is named but no pool needs it; it stays off")
    provider = cloud_named(config.cloud).display_name
    for pool in config.gpu_pools:
        if pool is not None and pool.autoscaling is not None and pool.autoscaling.min_count == 0:
            found.warnings.append(
                f"pool {pool.name}: minCount 0: {DRA_FROM_ZERO.format(provider=provider)}; keep minCount at 1 or more"
            )
    return found


def publisher_problems(
    stack: Stack, rows: list[Placement], addons: Sequence[tuple[ChartDefaults, object]]
) -> list[Problem]:
    """A node reached by both the device plugin and the DRA kubelet plugin would hand out every GPU twice."""
    charts = [stack.config.gpu_software.chosen_installer.defaults, *(chart for chart, _ in addons)]
    roles = {ds.name: ds.role for chart in charts for ds in chart.daemonsets}
    problems = []
    for pool in stack.pools:
        here = {roles.get(row.daemonset) for row in rows if row.pool == pool.name and row.schedules}
        if all(role in here for role in DEVICE_PUBLISHERS):
            problems.append(
                Problem(
                    field_path("gpuSoftware"),
                    (
                        f"pool {pool.name}: both the NVIDIA device plugin and the DRA driver's kubelet plugin run on "
                        'its nodes; the DRA driver "cannot run alongside the standard GPU device plugin" (helm values '
                        "reference): each would allocate the same GPUs. Allowed: the device plugin off where the DRA "
                        "driver runs"
                    ),
                )
            )
    return problems
