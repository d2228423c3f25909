"""What Kubernetes will advertise for each pool, and how much of it pods can use: per node and in total.

The rules are the device plugin's (README, v0.20.0): ``none`` advertises whole GPUs as ``nvidia.com/gpu``;
``single`` advertises every MIG device as ``nvidia.com/gpu``; ``mixed`` advertises one
``nvidia.com/mig-<profile>`` per profile. Time-slicing and MPS multiply each advertised device by their
replicas and, with ``renameByDefault``, suffix the name with ``.shared``.

Every GPU pod takes at least one slice and one pod slot, so on AKS, where a node holds at most ``maxPods``
pods, the slices usable at once are capped by the pod room: ``maxPods`` minus the daemonset pods on the
node. When a pool advertises several resources and the room is short, the room is shared in proportion to
each resource's count (largest remainders get the leftover slots), so no profile is starved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..catalog.clouds import (
    AKS_MAX_PODS,
    AKS_MIN_POOL_PODS,
    AKS_MIN_PODS,
    AKS_SYSTEM_DAEMONSET_PODS,
    GPU_NODE_DAEMONSET_ALLOWANCE,
    MAX_PODS_HEADROOM,
)
from ..config.models import MAX_TIME_SLICING_REPLICAS
from ..catalog.dra_driver import DRA_DRIVER_NAME, device_token
from ..catalog.labels import GPU_RESOURCE
from .pools import ResolvedPool


@dataclass(frozen=True)
class PoolCapacity:
    """Usable resources of one pool; ``per_node`` times ``nodes`` equals ``total``.

    ``advertised`` is what the device plugin announces per node; ``per_node`` is what pods can use at once,
    less than ``advertised`` only when ``max_pods`` leaves too little room.
    """

    pool: str
    size: str
    gpu: str
    nodes: int
    gpus_per_node: int
    per_node: dict[str, int]
    advertised: dict[str, int] = field(default_factory=dict)
    max_pods: int | None = None
    daemonset_pods: int = 0
    # Where nodes come with pending pods (Karpenter): the most the pool can have; ``nodes`` is then 0, at rest.
    max_nodes: int | None = None

    @property
    def total(self) -> dict[str, int]:
        return {name: count * self.nodes for name, count in self.per_node.items()}

    @property
    def total_at_most(self) -> dict[str, int] | None:
        """With ``max_nodes``: what the pool offers at its limit (its capacity ranges from ``total`` to this)."""
        if self.max_nodes is None:
            return None
        return {name: count * self.max_nodes for name, count in self.per_node.items()}

    @property
    def cut(self) -> bool:
        return sum(self.per_node.values()) < sum(self.advertised.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "size": self.size,
            "gpu": self.gpu,
            "nodes": self.nodes,
            "gpusPerNode": self.gpus_per_node,
            "perNode": dict(self.per_node),
            "total": self.total,
            "advertisedPerNode": dict(self.advertised),
            "maxPods": self.max_pods,
            "daemonsetPods": self.daemonset_pods,
            **({"maxNodes": self.max_nodes, "totalAtMost": self.total_at_most} if self.max_nodes is not None else {}),
        }


def dra_device_name(profile: str | None) -> str:
    """How the capacity table names a DRA device kind: ``gpu.nvidia.com/gpu``, ``gpu.nvidia.com/mig-1g.5gb``."""
    return f"{DRA_DRIVER_NAME}/{device_token(profile)}"


def physical_resources(pool: ResolvedPool) -> dict[str, int]:
    """Per node, before any sharing: what the device plugin advertises for the pool's GPUs or MIG devices, or,
    for a pool the DRA driver serves, the devices it publishes (whatever the MIG strategy: the driver lists every
    MIG device as its own device)."""
    gpus, strategy = pool.gpus_per_node, pool.mig_strategy
    if pool.dra:
        if pool.mig is None:
            return {dra_device_name(None): gpus}
        kinds = pool.mig.node.device_kinds()
        return {dra_device_name(kind): count for kind, count in kinds.items()}
    if pool.mig is None:
        return {GPU_RESOURCE: gpus}
    return pool.mig.node.advertised(strategy)


def advertised_resources(pool: ResolvedPool) -> dict[str, int]:
    """Per node, after time-slicing or MPS: each device counts ``replicas`` times, maybe renamed ``.shared``.

    DRA devices are published once whatever their sharing: sharing is a setting of the claim, not more devices.
    """
    resources = physical_resources(pool)
    if pool.dra:
        return resources
    sharing = pool.sharing
    mode = sharing and (sharing.time_slicing or sharing.mps)
    if not mode:
        return resources
    suffix = ".shared" if mode.rename_by_default else ""
    return {f"{name}{suffix}": count * mode.replicas for name, count in resources.items()}


def pod_room(max_pods: int | None, daemonset_pods: int) -> int | None:
    """Pods per node left for workloads; None when the cloud sets no limit we know (EKS)."""
    return None if max_pods is None else max(max_pods - daemonset_pods, 0)


def usable_resources(advertised: dict[str, int], room: int | None) -> dict[str, int]:
    """The slices pods can hold at once: all of them, or ``room`` shared in proportion to each resource's count."""
    total = sum(advertised.values())
    if room is None or total <= room:
        return dict(advertised)
    shares = {name: room * count / total for name, count in advertised.items()}
    usable = {name: int(share) for name, share in shares.items()}
    leftover = room - sum(usable.values())
    for name in sorted(shares, key=lambda n: (-(shares[n] - usable[n]), n))[:leftover]:
        usable[name] += 1
    return usable


def min_max_pods(fewest_nodes: int) -> int:
    """The lowest maxPods AKS accepts for a pool of ``fewest_nodes`` nodes: 10, and 30 pods in the whole pool."""
    return max(AKS_MIN_PODS, -(-AKS_MIN_POOL_PODS // max(fewest_nodes, 1)))


def fewest_nodes(pool: ResolvedPool) -> int:
    """The fewest nodes the pool is created or autoscaled with (at least 1: a pool that grows starts at one)."""
    bounds = pool.config.autoscaling
    nodes = min(pool.config.count, bounds.min_count) if bounds is not None else pool.config.count
    return max(nodes, 1)


def default_max_pods(physical_per_node: int, daemonset_pods: int, fewest: int = 1) -> int:
    """AKS maxPods for a pool, fixed at creation, so it counts only what is fixed with it: room for every device
    shared at the most replicas time-slicing allows, for the daemonsets with every option on (metrics, MPS), and
    some headroom; within AKS's 10..250 and at least 30 pods over the pool's ``fewest`` nodes. Editing sharing or
    metrics then changes a ConfigMap or a chart, never the pool (a changed maxPods replaces it)."""
    daemonsets = max(daemonset_pods, AKS_SYSTEM_DAEMONSET_PODS + GPU_NODE_DAEMONSET_ALLOWANCE)
    room = physical_per_node * MAX_TIME_SLICING_REPLICAS + daemonsets + MAX_PODS_HEADROOM
    return max(min_max_pods(fewest), min(AKS_MAX_PODS, room))


def pool_capacity(pool: ResolvedPool) -> PoolCapacity:
    advertised = advertised_resources(pool)
    usable = usable_resources(advertised, pod_room(pool.max_pods, pool.daemonset_pods))
    return PoolCapacity(
        pool.name,
        pool.size.name,
        pool.gpu.name,
        pool.nodes,
        pool.gpus_per_node,
        usable,
        advertised,
        pool.max_pods,
        pool.daemonset_pods,
        None if pool.provisioner.fixed_node_count else (pool.node_bounds or (0, 0))[1],
    )


def stack_capacity(pools: list[ResolvedPool]) -> list[PoolCapacity]:
    return [pool_capacity(pool) for pool in pools]
