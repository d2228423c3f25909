"""Every input that decides a pool's capacity or cost, as the plan shows it: one compact line per pool.

The capacity table says what a pool advertises; these say what it is bought with and where it lands: the
capacity type or Spot settings, the reservation, zones and subnets, whether EKS gets gpupools' launch template
and why, maxPods, the autoscaling bounds, the cluster network and the identity that buys the capacity. A
reviewer reads them in the pull request comment, so each value is the one the components send, or says who
decides it when gpupools does not (an existing cluster's network, the AMI's pod limit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.installers import Capability
from ..catalog.clouds import AKS_OVERLAY_NODE_PREFIX, AKS_OVERLAY_POD_CIDR
from ..config.models import StackConfig
from .mig_names import mig_items
from .pools import ResolvedPool
from .stack import Stack


@dataclass(frozen=True)
class CapacityInputs:
    """One pool's inputs, in the order they are shown: ``(name, value)`` pairs."""

    pool: str
    items: tuple[tuple[str, str], ...]

    def line(self) -> str:
        return "; ".join(f"{name}: {value}" for name, value in self.items)

    def to_json(self) -> dict[str, str]:
        return {"pool": self.pool, **dict(self.items)}


@dataclass(frozen=True)
class PoolCapacityInputs:
    """A cloud's facet: what decides whether its pool gets capacity (``aks_inputs``, ``eks_inputs``)."""

    capability: ClassVar[str] = "capacity inputs"
    inputs: Callable[[StackConfig, ResolvedPool], list[tuple[str, str]]]


# A provisioner's own inputs, where its pools are bought otherwise than the cloud's pools (Karpenter's NodePools).
PROVISIONER_INPUTS: Capability[Callable[[StackConfig, ResolvedPool], list[tuple[str, str]]]] = Capability(
    "capacity inputs"
)


def stack_capacity_inputs(stack: Stack) -> list[CapacityInputs]:
    cloud_inputs = cloud_named(stack.cloud).facet(PoolCapacityInputs).inputs

    def inputs(pool: ResolvedPool) -> list[tuple[str, str]]:
        if pool.provisioner.supports(PROVISIONER_INPUTS):
            return pool.provisioner.facet(PROVISIONER_INPUTS)(stack.config, pool)
        return cloud_inputs(stack.config, pool)

    # Then, for a MIG pool, the one map of its spellings (MIG1g = 1g.5gb on A100-40GB = nvidia.com/mig-1g.5gb).
    return [CapacityInputs(pool.name, (*inputs(pool), *mig_items(stack, pool))) for pool in stack.pools]


def uses_capacity_reservation_groups(config: StackConfig) -> bool:
    """Whether any AKS pool draws from a capacity reservation group (its cluster then needs a user-assigned
    identity: "System-assigned managed identities don't work for this feature")."""
    group_key = "capacityReservationGroupId" in cloud_named(config.cloud).pool_keys
    return group_key and any(p.capacity_reservation_group_id for p in config.gpu_pools if p)


def aks_identity(config: StackConfig) -> str:
    """The identity of the AKS control plane, which allocates the pools' VMs (and their reserved capacity)."""
    if not config.cluster.create:
        return "the existing cluster's (not read offline)"
    if uses_capacity_reservation_groups(config):
        return "user-assigned, created by gpupools, Contributor on each capacity reservation group's resource group"
    return "system-assigned"


def aks_inputs(config: StackConfig, pool: ResolvedPool) -> list[tuple[str, str]]:
    pool_config = pool.config
    zones = ", ".join(pool_config.availability_zones) or "none (regional)"
    computed = "computed" if pool_config.max_pods is None else "set"
    return [
        ("priority", _aks_priority(pool)),
        ("zones", zones),
        ("capacity reservation group", pool_config.capacity_reservation_group_id or "none"),
        ("maxPods", f"{pool.max_pods} ({computed})"),
        ("autoscaling", _autoscaling(pool)),
        ("network", _aks_network(config)),
        ("identity", aks_identity(config)),
    ]


def _aks_priority(pool: ResolvedPool) -> str:
    config = pool.config
    if config.priority != "Spot":
        return "Regular"
    price = config.spot_max_price
    most = "-1 (up to the on-demand price)" if price is None or price == -1 else f"${price:g}/h"
    return f"Spot, eviction {config.resolved_eviction_policy}, max price {most}"


def _aks_network(config: StackConfig) -> str:
    if not config.cluster.create:
        return "the existing cluster's (not read offline)"
    prefix = int(AKS_OVERLAY_POD_CIDR.split("/")[1])
    return (
        f"Azure CNI Overlay, pod CIDR {AKS_OVERLAY_POD_CIDR} (a /{AKS_OVERLAY_NODE_PREFIX} per node: at most "
        f"{2 ** (AKS_OVERLAY_NODE_PREFIX - prefix)} nodes)"
    )


def eks_inputs(config: StackConfig, pool: ResolvedPool) -> list[tuple[str, str]]:
    pool_config = pool.config
    items = [
        ("capacity type", pool_config.capacity_type or "ON_DEMAND (default)"),
        ("reservation", pool_config.capacity_reservation or "none"),
        ("launch template", _launch_template(pool)),
        ("subnets", _eks_subnets(config, pool)),
    ]
    if pool_config.efa:
        items.append(("EFA", f"{pool.size.efa_interfaces} interfaces, cluster placement group"))
    return items + [
        ("maxPods", "the AMI's (VPC CNI limit of the instance type)"),
        ("autoscaling", _autoscaling(pool)),
        ("network", "VPC CNI (pod IPs from the subnets)"),
        ("identity", _eks_identity(config)),
    ]


def _eks_identity(config: StackConfig) -> str:
    cluster = config.cluster
    if cluster.create:
        return "the cluster's node role, created by gpupools"
    if cluster.node_role_arn:
        return f"{cluster.node_role_arn} (nodeRoleArn: the existing cluster admits it)"
    return "the pool's own node role, created by gpupools (EKS adds a managed node group's role as an access entry)"


def _launch_template(pool: ResolvedPool) -> str:
    """gpupools makes a template only for what EKS takes through one (aws/launch_template.LaunchTemplateSpec)."""
    config = pool.config
    why = [
        reason
        for reason, needed in (
            ("reservation", config.capacity_reservation and config.capacity_type != "CAPACITY_BLOCK"),
            ("Capacity Block", config.capacity_type == "CAPACITY_BLOCK"),
            ("EFA", config.efa),
        )
        if needed
    ]
    return f"gpupools' ({', '.join(why)})" if why else "EKS's default"


def _eks_subnets(config: StackConfig, pool: ResolvedPool) -> str:
    if pool.config.subnet_ids:
        return f"{', '.join(pool.config.subnet_ids)} (the pool's)"
    if pool.cluster_subnet_ids:
        return f"{', '.join(pool.cluster_subnet_ids)} (the cluster's)"
    if config.cluster.create:
        return "the cluster's (the default VPC's)"
    return "the existing cluster's (read from EKS at deploy, not offline)"


def _autoscaling(pool: ResolvedPool) -> str:
    bounds = pool.config.autoscaling
    return f"{bounds.min_count}..{bounds.max_count} nodes" if bounds else "off"
