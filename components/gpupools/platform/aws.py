"""EKS wiring of ``GpuPlatform``: a regional AWS provider, the cluster and one ``EksGpuNodeGroup`` per pool.

Imports the AWS SDKs, so only an aws stack loads this module.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws

from ..domain.node_templates import cluster_autoscaler_args, eks_autoscaler_tags
from ..aws.cluster import EksCluster, EksClusterArgs
from ..aws.gpu_node_group import EksGpuNodeGroup, EksGpuNodeGroupArgs
from ..domain.stack import Stack
from ..domain.pools import ResolvedPool, eks_fixed_fields
from ..catalog.clouds import DEFAULT_AMI_TYPE
from ..catalog.provisioners import NODE_GROUP
from .eks_pools import EKS_POOLS, EksPoolContext, build_pools
from .inputs import Deferred, given

NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup"


def build(
    stack: Stack, deferred: Deferred, prefix: str, opts: pulumi.ResourceOptions
) -> tuple[EksCluster, list[pulumi.ComponentResource]]:
    """Components are named ``prefix`` + the cluster's or pool's name (``prefix`` + cluster when the name is an
    output)."""
    cluster_config = stack.config.cluster
    system = cluster_config.system_pool
    # The region in gpupools:cluster is the one used, whatever aws:region or the environment say.
    provider = aws.Provider(prefix + "aws", region=cluster_config.region, opts=opts)
    regional = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers=[provider]))
    cluster_name = deferred.cluster_value("name", cluster_config.name)
    subnet_ids = deferred.cluster_value("subnet_ids", cluster_config.subnet_ids)
    created = cluster_config.create
    cluster = EksCluster(
        prefix + ("cluster" if "name" in deferred.cluster else cluster_config.name),
        given(
            EksClusterArgs,
            {
                "name": cluster_name,
                "create": cluster_config.create,
                "kubernetes_version": cluster_config.kubernetes_version,
                "system_node_size": system.size if system else None,
                "system_node_count": system.count if system else None,
                # An existing cluster's network is read from EKS: subnet_ids go to its node groups only.
                "subnet_ids": subnet_ids if created else None,
                # pulumi-eks creates the cluster's security groups in this VPC (the default VPC without it).
                "vpc_id": deferred.cluster_value("vpc_id", cluster_config.vpc_id)
                if created and cluster_config.subnet_ids
                else None,
                "tags": stack.config.tags,
            },
        ),
        regional,
    )
    from . import karpenter  # noqa: F401  (attaches Karpenter's facet)

    pools = build_pools(EksPoolContext(stack, deferred, cluster, subnet_ids, prefix, regional))
    groups = [component for component in pools if isinstance(component, EksGpuNodeGroup)]
    _cluster_autoscaler(stack, cluster, groups, prefix, regional)
    return cluster, pools


def _node_groups(context: EksPoolContext, pools: list[tuple[int, ResolvedPool]]) -> list[pulumi.ComponentResource]:
    stack, cluster, prefix = context.stack, context.cluster, context.prefix
    return [
        EksGpuNodeGroup(
            prefix + pool.name,
            _group_args(stack, context.deferred, index, pool, cluster, context.cluster_subnets),
            _group_opts(pool, context.opts),
        )
        for index, pool in pools
    ]


def _group_opts(pool: ResolvedPool, opts: pulumi.ResourceOptions) -> pulumi.ResourceOptions:
    """The pool's rotation as a transform on its node group, which sits inside pulumi-eks's remote component.

    Resource options on a remote component do not reach its children, but transforms do (Pulumi "transforms"
    docs). Left alone, the AWS provider deletes an explicitly named node group before creating its replacement
    (pulumi-terraform-bridge ``nameRequiresDeleteBeforeReplace``; ``nodeGroupName`` is auto-nameable in pulumi-aws).
    Only True reaches the engine: the SDK serialises a transform's ``delete_before_replace`` only when truthy
    (``pulumi/runtime/_callbacks.py``). So surge asks the component for create-first instead
    (``delete_before_replace=False``): it registers each generation under its own logical name, a new URN, which
    the engine creates before deleting the old generation (``domain.rotation.replacement_order``).
    """
    own = pulumi.ResourceOptions(transforms=[node_group_rotation(pool.rotation)])
    if pool.rotation == "surge":  # each generation its own logical name: create-first (aws/gpu_node_group.py)
        own.delete_before_replace = False
    return pulumi.ResourceOptions.merge(opts, own)


def node_group_rotation(rotation: str) -> pulumi.ResourceTransform:
    """A transform setting ``delete_before_replace`` on the pool's node group: False for surge, else True."""
    delete_first = rotation != "surge"

    def transform(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
        if args.type_ != NODE_GROUP_TYPE:
            return None
        return pulumi.ResourceTransformResult(
            props=args.props,
            opts=pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(delete_before_replace=delete_first)),
        )

    return transform


def _cluster_autoscaler(
    stack: Stack, cluster: EksCluster, groups: list[EksGpuNodeGroup], prefix: str, opts: pulumi.ResourceOptions
) -> None:
    """The cluster autoscaler with its IRSA role, when ``cluster.autoscaler.install`` asks for it."""
    settings = cluster_autoscaler_args(stack)
    if settings is None or cluster.cluster is None:  # config refuses install without a created cluster
        return
    from ..kubernetes.cluster_autoscaler import ClusterAutoscaler, ClusterAutoscalerArgs

    ClusterAutoscaler(
        prefix + "cluster-autoscaler",
        given(
            ClusterAutoscalerArgs,
            {
                **settings,
                "oidc_provider_arn": cluster.cluster.oidc_provider_arn,
                "oidc_provider_url": cluster.cluster.oidc_provider_url,
                "tags": stack.config.tags,
                "kubernetes_version": stack.config.cluster.kubernetes_version,  # the autoscaler image of the same minor
            },
        ),
        pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers=[cluster.provider], depends_on=groups)),
    )


def _group_args(
    stack: Stack, deferred: Deferred, index: int, pool: ResolvedPool, cluster: EksCluster, cluster_subnets
) -> EksGpuNodeGroupArgs:
    autoscaling = pool.config.autoscaling
    count = deferred.pool_value(index, "count", pool.nodes)
    # On a cluster gpupools created, the pulumi-eks Cluster object and its node role; on an existing one, its name,
    # the node role it admits (nodeRoleArn, else the group's own) and, by default, the subnets EKS reports for it.
    created = stack.config.cluster.create
    links = (
        {"cluster": cluster.cluster, "node_role": cluster.node_role}
        if created
        else {
            "cluster_name": cluster.cluster_name,
            "node_role_arn": deferred.cluster_value("node_role_arn", stack.config.cluster.node_role_arn),
        }
    )
    own_subnets = deferred.pool_value(index, "subnet_ids", pool.config.subnet_ids)
    # The component's defaults without autoscaling: count..max(count, 1). (A count given as an output is
    # refused on aws in inputs.py: EksGpuNodeGroup needs a number to compute max(count, 1).)
    bounds = (autoscaling.min_count, autoscaling.max_count) if autoscaling else (None, None)
    args = {
        **links,  # one node role for a created cluster, as its access entry already allows it
        "node_group_name": pool.cloud_pool_name,
        "instance_type": pool.size.name,
        "desired_size": count,
        "min_size": bounds[0],
        "max_size": bounds[1],
        # The cluster autoscaler owns an autoscaled pool's node count; a fixed pool's count is ours.
        "ignore_scaling_changes": autoscaling is not None,
        "ami_type": pool.config.ami_type,  # the driver comes with the AMI: config refuses driver: operator on EKS
        "disk_size_gb": pool.config.disk_size_gb,
        "labels": pool.labels,
        "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints],
        "subnet_ids": own_subnets or cluster_subnets or (None if created else cluster.subnet_ids),
        # ON_DEMAND written out is sent unset, as when defaulted (the generation hashes the same).
        "capacity_type": eks_fixed_fields(pool, [], DEFAULT_AMI_TYPE)["capacityType"],
        "capacity_reservation": deferred.pool_value(index, "capacity_reservation", pool.config.capacity_reservation),
        "efa": pool.config.efa,
        "efa_interfaces": pool.size.efa_interfaces if pool.config.efa else None,
        "tags": stack.config.tags,
        # Scale from zero: the pool's node template on its Auto Scaling group (empty for a fixed pool).
        "autoscaler_tags": eks_autoscaler_tags(stack, pool),
        # Its name hashes the layout, so it differs from 0.2.0's: no alias, or the upgrade would be delete-first.
        "adopt_earlier_group": False if pool.layout_in_generation else None,
    }
    return given(EksGpuNodeGroupArgs, args)


NODE_GROUP.attach(EKS_POOLS, _node_groups)
