"""A MIG layout change on a live pool the GPU Operator cuts: the nodes are re-cut in place, so the slices go offline.

The layout is the node label ``nvidia.com/mig.config``, which EKS and AKS update in place on the running nodes; the
GPU Operator's MIG manager then re-cuts each node. What it does, from NVIDIA/mig-parted v0.15.0
(``e2d5ad1f``) ``pkg/mig/reconfigure/reconfigure.go`` ``Run``: it sets ``nvidia.com/mig.config.state=pending``,
pauses the device plugin, GFD, DCGM, the DCGM exporter and every ``nvidia.com/gpu.deploy.client`` daemonset on the
node (``shutdownKubernetesGPUClients``), waits for their pods to leave, applies the layout, and sets the state to
``success``, or to ``failed`` when a step fails. NVIDIA's docs (gpu-operator-mig.rst, "MIG Manager requires that no
user workloads are running on the GPUs being configured [...] the node might need to be cordoned") add that GPU pods
must be gone: with one still running the cut fails, the state stays ``failed``, and gpupools' own workload selector
(``nvidia.com/mig.config.state: success``) no longer matches the node. So the pool's capacity is offline from the
drain until the state is ``success`` again, and the plan says which pods must leave and how.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..catalog.labels import MIG_CONFIG_LABEL, MIG_CONFIG_STATE_LABEL, MIG_CONFIG_STATE_READY, POOL_LABEL
from .in_place import InPlaceEffect

# What the MIG manager waits for before it cuts (mig-parted v0.15.0 reconfigure.go, shutdownKubernetesGPUClients).
PAUSED = "the device plugin, GFD, DCGM, the DCGM exporter and every nvidia.com/gpu.deploy.client daemonset"
WHY_OFFLINE = "is re-cut in place: its GPU pods must leave first"


def recut_effect(
    pool: str,
    old_labels: Mapping[str, Any],
    new_labels: Mapping[str, Any],
    nodes: int,
    per_node: Mapping[str, int],
    autoscaled: bool = False,
) -> InPlaceEffect | None:
    """What changing the pool's ``nvidia.com/mig.config`` label in place does to its ``nodes`` running nodes (each
    advertising ``per_node`` before the change); None when the layout label does not change to a new layout.
    A ``rotation: surge`` pool the operator cuts hashes its layout into its generation (``domain.pools``), so its
    layout change is a new pool created first and never reaches here. ``autoscaled``: ``nodes`` is the most the
    autoscaler may be running, so even a pool planned at zero may have some."""
    old, new = old_labels.get(MIG_CONFIG_LABEL), new_labels.get(MIG_CONFIG_LABEL)
    if new is None or old == new:
        return None
    change = f"MIG layout {old or 'none'} → {new}"
    if nodes <= 0:
        return InPlaceEffect(f"{change}: applied in place (the pool has no nodes)", outage=False)
    resources = ", ".join(f"{name}" for name in sorted(per_node)) or "GPUs"
    running = f"{'up to ' if autoscaled else ''}{nodes} running node{'s' if nodes != 1 else ''}"
    what = (
        f"{change} on {running}: the GPU Operator's MIG manager re-cuts each "
        f"node in place, pausing {PAUSED} until it is done, and fails (nvidia.com/mig.config.state=failed) while a "
        f"GPU pod runs there; a failed node no longer matches the workloads' {MIG_CONFIG_STATE_LABEL}: "
        f"{MIG_CONFIG_STATE_READY} selector. So every pod requesting {resources} on {POOL_LABEL}={pool} must leave "
        "before pulumi up: cordon and drain the pool, deploy, wait for success, uncordon"
    )
    return InPlaceEffect(what, outage=True, offline_why=WHY_OFFLINE, steps=drain_steps(pool))


def pool_recut(
    pool: str,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    labels_input: str,
    capacity: Mapping[str, Any] | None,
) -> InPlaceEffect | None:
    """``recut_effect`` for a pool's cloud resource in two plans (the same type, updated in place) and its base
    capacity entry: on an autoscaled pool, as many nodes as it may be running."""
    most = autoscaled_most(before)
    nodes = int((capacity or {}).get("nodes", 0))
    return recut_effect(
        pool,
        before["inputs"].get(labels_input) or {},
        after["inputs"].get(labels_input) or {},
        max(nodes, most or 0),
        (capacity or {}).get("perNode") or {},
        autoscaled=most is not None,
    )


def drain_steps(pool: str) -> tuple[str, ...]:
    """The commands around ``pulumi up``: the pool's nodes carry the GPU taint, so what a drain evicts there is what
    tolerates it (GPU pods); daemonsets stay, as the MIG manager pauses NVIDIA's own itself."""
    selector = f"{POOL_LABEL}={pool}"
    state = "{.metadata.labels." + MIG_CONFIG_STATE_LABEL.replace(".", "\\.") + "}"
    return (
        f"kubectl cordon -l {selector}",
        f"kubectl drain -l {selector} --ignore-daemonsets --delete-emptydir-data",
        "pulumi up",
        f"kubectl wait node -l {selector} --for=jsonpath='{state}'={MIG_CONFIG_STATE_READY} --timeout=30m",
        f"kubectl uncordon -l {selector}",
    )


def autoscaled_most(resource: Mapping[str, Any]) -> int | None:
    """The most nodes an autoscaled pool resource may run: AKS ``maxCount`` with ``enableAutoScaling``, EKS
    ``scalingConfig.maxSize`` where the autoscaler owns the desired size (pulumi-eks ``ignoreScalingChanges``, or
    ``ignoreChanges`` on it); None when the count is fixed (EKS's ``maxSize`` is then at least 1 even at zero)."""
    inputs = resource.get("inputs") or {}
    if inputs.get("enableAutoScaling") and isinstance(inputs.get("maxCount"), int):
        return int(inputs["maxCount"])
    ignored = (resource.get("options") or {}).get("ignoreChanges") or []
    scaling = inputs.get("scalingConfig")
    owned = inputs.get("ignoreScalingChanges") is True or "scalingConfig.desiredSize" in ignored
    if owned and isinstance(scaling, Mapping) and isinstance(scaling.get("maxSize"), int):
        return int(scaling["maxSize"])
    return None
