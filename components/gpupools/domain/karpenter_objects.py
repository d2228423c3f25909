"""A Karpenter pool as Karpenter's objects: an ``EC2NodeClass``, a ``NodePool`` and, where the nodes advertise
what EC2 does not say, a ``NodeOverlay``. Pure dicts, exactly as the API server receives them.

Fields as the Karpenter v1.14 docs describe them (``concepts/nodepools.md``, ``nodeclasses.md``, ``nodeoverlays.md``,
``disruption.md``; read 2026-11-28 at 1d927085dd81); tests validate every object against the v1.14.1 CRDs' schemas
and CEL rules. The overlay's capacity is ``domain.capacity``'s: what the plan says a node advertises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..catalog.clouds import DEFAULT_AMI_TYPE, KARPENTER_AMI_ALIASES, KARPENTER_AMI_VERSION
from ..catalog.instances import has_local_nvme
from ..catalog.labels import GPU_RESOURCE
from ..catalog.provisioners import (
    INSTANCE_TYPE_LABEL,
    KARPENTER_CAPACITY_TYPE_LABEL,
    KARPENTER_INSTANCE_FAMILY_LABEL,
    KARPENTER_INSTANCE_GPU_COUNT_LABEL,
    KARPENTER_NODECLASS_LABEL,
    KARPENTER_NODEPOOL_LABEL,
    ZONE_LABEL,
)
from ..config.models import KarpenterPoolConfig
from ..errors import GpupoolsError
from .capacity import pool_capacity
from .pools import ResolvedPool

NODEPOOL_API = "karpenter.sh/v1"
NODEOVERLAY_API = "karpenter.sh/v1alpha1"
NODECLASS_API = "karpenter.k8s.aws/v1"
NODECLASS_GROUP, NODECLASS_KIND = "karpenter.k8s.aws", "EC2NodeClass"
# Karpenter selects subnets and security groups tagged so when no ids are given (getting-started guide).
DISCOVERY_TAG = "karpenter.sh/discovery"
ARCH_LABEL = "kubernetes.io/arch"
ROOT_DEVICE = "/dev/xvda"  # the AL2023 AMIs' root device (nodeclasses.md, default block device mappings)


class KarpenterObjectError(GpupoolsError, ValueError):
    """An object Karpenter would take but that would tell it something false (a zero GPU count)."""


@dataclass(frozen=True)
class NodeClassInputs:
    """What every EC2NodeClass of a cluster shares: its name (for discovery tags), the node role's name, and the
    subnets and security groups by id (None: by the cluster's discovery tag).

    The role and the ids may also be values known only once deployed (anything with ``apply``, as Pulumi's outputs):
    the object then holds each as such a value, so the rest of it stays known in a preview."""

    cluster_name: str
    role: Any
    subnet_ids: Any = None
    security_group_ids: Any = None
    tags: dict[str, str] = field(default_factory=dict)


def capacity_type(pool: ResolvedPool) -> str:
    """Karpenter's ``karpenter.sh/capacity-type``: a reservation (an ODCR or Capacity Block) is ``reserved``."""
    config = pool.config
    if config.capacity_reservation is not None or config.capacity_type == "CAPACITY_BLOCK":
        return "reserved"
    return "spot" if config.capacity_type == "SPOT" else "on-demand"


def ec2_node_class(pool: ResolvedPool, cluster: NodeClassInputs) -> dict[str, Any]:
    config = pool.config
    alias = KARPENTER_AMI_ALIASES[config.ami_type or DEFAULT_AMI_TYPE]
    spec: dict[str, Any] = {
        "role": cluster.role,
        "amiSelectorTerms": [{"alias": f"{alias}@{KARPENTER_AMI_VERSION}"}],
        "subnetSelectorTerms": _selector(config.subnet_ids or cluster.subnet_ids, cluster.cluster_name),
        "securityGroupSelectorTerms": _selector(cluster.security_group_ids, cluster.cluster_name),
        "blockDeviceMappings": [
            {
                "deviceName": ROOT_DEVICE,
                "rootVolume": True,
                "ebs": {
                    "volumeSize": f"{config.disk_size_gb}Gi",
                    "volumeType": "gp3",
                    "encrypted": True,
                    "deleteOnTermination": True,
                },
            }
        ],
    }
    if has_local_nvme(pool.size.name):
        spec["instanceStorePolicy"] = "RAID0"
    if config.efa:
        spec["networkInterfaces"] = efa_interfaces(pool.size.efa_interfaces)
    if config.capacity_reservation is not None:
        spec["capacityReservationSelectorTerms"] = [{"id": config.capacity_reservation}]
    if cluster.tags:
        spec["tags"] = dict(cluster.tags)
    return {"apiVersion": NODECLASS_API, "kind": NODECLASS_KIND, "metadata": {"name": pool.name}, "spec": spec}


def efa_interfaces(count: int) -> list[dict[str, Any]]:
    """The primary interface, then one EFA-only interface per network card (the size's EFA count); card 0 holds
    the primary at device 0, so its EFA is device 1 (the CRD's rules: one primary, one EFA-only per card)."""
    interfaces = [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}]
    interfaces += [
        {"networkCardIndex": card, "deviceIndex": 1 if card == 0 else 0, "interfaceType": "efa-only"}
        for card in range(count)
    ]
    return interfaces


def node_pool(pool: ResolvedPool, weight: int | None = None) -> dict[str, Any]:
    config = pool.config
    settings = config.karpenter or KarpenterPoolConfig()  # the config's defaults, written once there
    max_count = config.max_count or 0
    template_spec: dict[str, Any] = {
        "nodeClassRef": {"group": NODECLASS_GROUP, "kind": NODECLASS_KIND, "name": pool.name},
        "requirements": requirements(pool),
        "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints],
    }
    if settings.expire_after is not None:
        template_spec["expireAfter"] = settings.expire_after
    if settings.termination_grace_period is not None:
        template_spec["terminationGracePeriod"] = settings.termination_grace_period
    spec: dict[str, Any] = {
        "template": {"metadata": {"labels": dict(pool.labels)}, "spec": template_spec},
        "disruption": {
            "consolidationPolicy": settings.consolidation_policy,
            "consolidateAfter": settings.consolidate_after,
            "budgets": [{"nodes": settings.budget}],
        },
        "limits": {"nodes": str(max_count), GPU_RESOURCE: str(max_count * pool.gpus_per_node)},
    }
    chosen = settings.weight if settings.weight is not None else weight
    if chosen is not None:
        spec["weight"] = chosen
    return {"apiVersion": NODEPOOL_API, "kind": "NodePool", "metadata": {"name": pool.name}, "spec": spec}


def requirements(pool: ResolvedPool) -> list[dict[str, Any]]:
    """The instance type, the capacity type, the AMI's architecture (the allowed AMI types are x86_64) and the
    zones, when the pool names them."""
    found = [
        {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": [pool.size.name]},
        {"key": KARPENTER_CAPACITY_TYPE_LABEL, "operator": "In", "values": [capacity_type(pool)]},
        {"key": ARCH_LABEL, "operator": "In", "values": ["amd64"]},
    ]
    zones = pool.config.karpenter.zones if pool.config.karpenter is not None else []
    return found + ([{"key": ZONE_LABEL, "operator": "In", "values": list(zones)}] if zones else [])


def karpenter_node_labels(pool: ResolvedPool) -> dict[str, str]:
    """The labels a node Karpenter launches for the pool carries at registration: the NodePool's template labels
    and Karpenter's well-known ones (scheduling.md), which selectors and the placement check can name."""
    return {
        **pool.labels,
        KARPENTER_NODEPOOL_LABEL: pool.name,
        KARPENTER_CAPACITY_TYPE_LABEL: capacity_type(pool),
        KARPENTER_NODECLASS_LABEL: pool.name,
        INSTANCE_TYPE_LABEL: pool.size.name,
        KARPENTER_INSTANCE_FAMILY_LABEL: pool.size.name.split(".", 1)[0],
        KARPENTER_INSTANCE_GPU_COUNT_LABEL: str(pool.gpus_per_node),
        ARCH_LABEL: "amd64",
    }


def overlay_capacity(pool: ResolvedPool) -> dict[str, int] | None:
    """What a node of the pool advertises (``domain.capacity``, as the plan shows it), when Karpenter would not
    know it from EC2's figures (whole GPUs as ``nvidia.com/gpu``); None for a pool that needs no overlay, and
    for DRA pools, whose GPUs are ResourceSlice devices rather than extended resources."""
    if pool.dra:
        return None
    advertised = pool_capacity(pool).advertised
    if advertised == {GPU_RESOURCE: pool.gpus_per_node}:
        return None
    return advertised


def node_overlay(pool: ResolvedPool) -> dict[str, Any] | None:
    """The NodeOverlay scoped to the pool's NodePool (``karpenter.sh/nodepool``, which the overlay controller
    matches against each NodePool's offerings), adding what its nodes advertise; None when none is needed."""
    capacity = overlay_capacity(pool)
    if capacity is None:
        return None
    zero = sorted(name for name, count in capacity.items() if count <= 0)
    if zero:
        raise KarpenterObjectError(
            f"pool {pool.name}: an overlay would tell Karpenter its nodes have {', '.join(zero)} 0, so no pod "
            f"asking for one would ever get a node; refused (the pool's capacity is {capacity})"
        )
    return {
        "apiVersion": NODEOVERLAY_API,
        "kind": "NodeOverlay",
        "metadata": {"name": pool.name},
        "spec": {
            "requirements": [
                {"key": KARPENTER_NODEPOOL_LABEL, "operator": "In", "values": [pool.name]},
                {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": [pool.size.name]},
            ],
            "capacity": {name: str(count) for name, count in sorted(capacity.items())},
        },
    }


def nodepool_weights(pools: list[ResolvedPool]) -> dict[str, int]:
    """Weights for pools a pod could land on alike (the same instance type and capacity type): the first in
    ``gpuPools`` weighs most, so Karpenter's choice between them is the stack's order, not the NodePools' names."""
    groups: dict[tuple[str, str], list[str]] = {}
    for pool in pools:
        groups.setdefault((pool.size.name, capacity_type(pool)), []).append(pool.name)
    return {name: 100 - rank for names in groups.values() if len(names) > 1 for rank, name in enumerate(names[:100])}


@dataclass(frozen=True)
class PoolObjects:
    """One Karpenter pool's objects: its EC2NodeClass, its NodePool, and its NodeOverlay where one is needed."""

    node_class: dict[str, Any]
    node_pool: dict[str, Any]
    overlay: dict[str, Any] | None

    def all(self) -> list[dict[str, Any]]:
        return [self.node_class, self.node_pool] + ([self.overlay] if self.overlay is not None else [])


def pool_objects(pools: list[ResolvedPool], cluster: NodeClassInputs) -> list[PoolObjects]:
    """Each Karpenter pool's objects, in the pools' order, weighed against each other (``nodepool_weights``)."""
    weights = nodepool_weights(pools)
    return [
        PoolObjects(ec2_node_class(pool, cluster), node_pool(pool, weights.get(pool.name)), node_overlay(pool))
        for pool in pools
    ]


def karpenter_objects(pools: list[ResolvedPool], cluster: NodeClassInputs) -> list[dict[str, Any]]:
    """Every Karpenter pool's objects, in order: its EC2NodeClass, NodePool, and NodeOverlay where one is needed."""
    return [item for objects in pool_objects(pools, cluster) for item in objects.all()]


def needs_node_overlay(pools: list[ResolvedPool]) -> bool:
    """Whether any pool needs a NodeOverlay: the chart then turns the ``NodeOverlay`` feature gate on."""
    return any(overlay_capacity(pool) is not None for pool in pools)


def _selector(ids: Any, cluster_name: str) -> Any:
    """Selector terms by id, else by the discovery tag; for ids known later, that value's terms."""
    if hasattr(ids, "apply"):
        return ids.apply(lambda known: _selector(known, cluster_name))
    if ids:
        return [{"id": item} for item in ids]
    return [{"tags": {DISCOVERY_TAG: cluster_name}}]
