"""What Kubernetes will advertise for each pool: resource names and counts per node and in total.

The rules are the device plugin's (README, v0.20.0): ``none`` advertises whole GPUs as ``nvidia.com/gpu``;
``single`` advertises every MIG device as ``nvidia.com/gpu``; ``mixed`` advertises one
``nvidia.com/mig-<profile>`` per profile. Time-slicing and MPS multiply each advertised device by their
replicas and, with ``renameByDefault``, suffix the name with ``.shared``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .pools import ResolvedPool

GPU_RESOURCE = "nvidia.com/gpu"


def mig_resource_name(profile: str) -> str:
    """``1g.5gb`` -> ``nvidia.com/mig-1g.5gb``; ``1g.5gb+me`` -> ``nvidia.com/mig-1g.5gb.me`` (no '+' in resource names)."""
    return f"nvidia.com/mig-{profile.replace('+', '.')}"


@dataclass(frozen=True)
class PoolCapacity:
    """Advertised resources of one pool; ``per_node`` times ``nodes`` equals ``total``."""

    pool: str
    size: str
    gpu: str
    nodes: int
    gpus_per_node: int
    per_node: dict[str, int]

    @property
    def total(self) -> dict[str, int]:
        return {name: count * self.nodes for name, count in self.per_node.items()}

    def to_json(self) -> dict:
        return {
            "pool": self.pool, "size": self.size, "gpu": self.gpu, "nodes": self.nodes,
            "gpusPerNode": self.gpus_per_node, "perNode": dict(self.per_node), "total": self.total,
        }


def physical_resources(pool: ResolvedPool, strategy: str) -> dict[str, int]:
    """Per node, before any sharing: what the device plugin advertises for the pool's GPUs or MIG devices."""
    gpus = pool.gpus_per_node
    if pool.mig is None or strategy == "none":
        return {GPU_RESOURCE: gpus}
    if strategy == "single":
        return {GPU_RESOURCE: gpus * pool.mig.devices_per_gpu}
    return {mig_resource_name(profile): gpus * count for profile, count in sorted(pool.mig.devices.items())}


def advertised_resources(pool: ResolvedPool, strategy: str) -> dict[str, int]:
    """Per node, after time-slicing or MPS: each device counts ``replicas`` times, maybe renamed ``.shared``."""
    resources = physical_resources(pool, strategy)
    sharing = pool.sharing
    mode = sharing and (sharing.time_slicing or sharing.mps)
    if not mode:
        return resources
    suffix = ".shared" if mode.rename_by_default else ""
    return {f"{name}{suffix}": count * mode.replicas for name, count in resources.items()}


def pool_capacity(pool: ResolvedPool, strategy: str) -> PoolCapacity:
    return PoolCapacity(pool.name, pool.size.name, pool.gpu.name, pool.nodes, pool.gpus_per_node,
                        advertised_resources(pool, strategy))


def stack_capacity(pools: list[ResolvedPool], strategy: str) -> list[PoolCapacity]:
    return [pool_capacity(pool, strategy) for pool in pools]
