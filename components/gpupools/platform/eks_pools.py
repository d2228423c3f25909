"""How each node provisioner's pools become Pulumi components on EKS: a facet every provisioner offered on aws
carries (the node group's in ``platform/aws.py``, Karpenter's in ``platform/karpenter.py``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi

from ..catalog.installers import Capability
from ..domain.pools import ResolvedPool
from ..domain.stack import Stack
from .inputs import Deferred


@dataclass(frozen=True)
class EksPoolContext:
    """What every provisioner's components may need: the stack, deferred values, the cluster component (its
    provider, names and network), the cluster's subnets as given, the name prefix and the regional options."""

    stack: Stack
    deferred: Deferred
    cluster: Any
    cluster_subnets: Any
    prefix: str
    opts: pulumi.ResourceOptions


# (context, [(index in gpuPools, pool)]) -> the components of those pools, in order
EksPoolBuilder = Callable[[EksPoolContext, list[tuple[int, ResolvedPool]]], list[pulumi.ComponentResource]]
EKS_POOLS: Capability[EksPoolBuilder] = Capability("EKS pool components")


def build_pools(context: EksPoolContext) -> list[pulumi.ComponentResource]:
    """Each provisioner's pools through its facet, provisioner by provisioner in the order pools first name them."""
    by_provisioner: dict[str, list[tuple[int, ResolvedPool]]] = {}
    for index, pool in enumerate(context.stack.pools):
        by_provisioner.setdefault(pool.provisioner.name, []).append((index, pool))
    components: list[pulumi.ComponentResource] = []
    for pools in by_provisioner.values():
        components += pools[0][1].provisioner.facet(EKS_POOLS)(context, pools)
    return components
