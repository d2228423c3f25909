"""Karpenter pools of an EKS ``GpuPlatform``: Karpenter itself where the stack installs it, and one ``KarpenterPool``
per pool (its EC2NodeClass, NodePool and NodeOverlay from ``domain/karpenter_objects.py``).

An existing cluster (``create: false``, ``karpenter.present``) gets only the pools' objects: its node role is the
``nodeRoleArn`` its owner admits. The node classes select the cluster's subnets (the pool's, the stack's, else what
EKS reports) and the security group EKS made for the cluster, by id.
"""

from __future__ import annotations

from typing import Any

import pulumi

from ..catalog.provisioners import KARPENTER
from ..domain.karpenter_objects import NodeClassInputs, needs_node_overlay, pool_objects
from ..domain.pools import ResolvedPool
from ..kubernetes.karpenter import Karpenter, KarpenterArgs
from ..kubernetes.karpenter_pool import KarpenterPool, KarpenterPoolArgs
from .eks_pools import EKS_POOLS, EksPoolContext
from .inputs import given


def role_name(role_arn: str) -> str:
    """An IAM role's name: the ARN's last path segment (``arn:aws:iam::<account>:role/<path>/<name>``)."""
    return role_arn.rsplit("/", 1)[-1]


def _karpenter_pools(context: EksPoolContext, pools: list[tuple[int, ResolvedPool]]) -> list[pulumi.ComponentResource]:
    stack, cluster, prefix = context.stack, context.cluster, context.prefix
    settings = stack.config.cluster
    kubernetes = pulumi.ResourceOptions.merge(context.opts, pulumi.ResourceOptions(providers=[cluster.provider]))
    resolved = [pool for _, pool in pools]
    after: list[pulumi.Resource] = []
    if settings.karpenter.install:
        installed = Karpenter(
            prefix + "karpenter",
            given(
                KarpenterArgs,
                {
                    "cluster_name": cluster.cluster_name,
                    "region": settings.region,
                    "node_overlay": needs_node_overlay(resolved),
                    "version": settings.karpenter.version,
                    "tags": stack.config.tags,
                },
            ),
            # Its access entry, Pod Identity and add-on name the cluster by a plain name: wait for the cluster.
            pulumi.ResourceOptions.merge(kubernetes, pulumi.ResourceOptions(depends_on=[cluster])),
        )
        role: Any = installed.node_role_name
        after.append(installed)
    else:  # the rules require nodeRoleArn with karpenter.present
        role = pulumi.Output.from_input(context.deferred.cluster_value("node_role_arn", settings.node_role_arn)).apply(
            role_name
        )
    subnets = context.cluster_subnets or cluster.subnet_ids
    security_groups = pulumi.Output.from_input(cluster.cluster_security_group_id).apply(
        lambda group: [group] if group else None
    )
    inputs = NodeClassInputs(
        settings.name,
        role,
        subnets if isinstance(subnets, pulumi.Output) else (tuple(subnets) or None),
        security_groups,
        dict(stack.config.tags or {}),
    )
    components: list[pulumi.ComponentResource] = []
    for pool, objects in zip(resolved, pool_objects(resolved, inputs)):
        args: dict[str, Any] = {
            "node_pool_name": pool.name,
            "node_class": objects.node_class,
            "node_pool": objects.node_pool,
            **({"node_overlay": objects.overlay} if objects.overlay is not None else {}),
        }
        # One ResourceOptions per resource: the SDK may fill in what it is given.
        options = pulumi.ResourceOptions.merge(kubernetes, pulumi.ResourceOptions(depends_on=after))
        components.append(KarpenterPool(prefix + pool.name, given(KarpenterPoolArgs, args), options))
    return components


KARPENTER.attach(EKS_POOLS, _karpenter_pools)
