"""EKS wiring: the cluster and one ``EksGpuNodeGroup`` per validated pool."""

import pulumi
import pulumi_aws as aws

from gpupools.aws import EksCluster, EksGpuNodeGroup
from gpupools.config import Stack
from gpupools.pools import ResolvedPool


def build(stack: Stack) -> tuple[EksCluster, list[EksGpuNodeGroup]]:
    cluster_config = stack.config.cluster
    system = cluster_config.system_pool
    # The region in gpupools:cluster is the one used, whatever aws:region or the environment say.
    region = pulumi.ResourceOptions(providers=[aws.Provider("aws", region=cluster_config.region)])
    cluster = EksCluster(cluster_config.name, {
        "name": cluster_config.name,
        "create": cluster_config.create,
        "kubernetes_version": cluster_config.kubernetes_version,
        "system_node_size": system.size if system else None,
        "system_node_count": system.count if system else None,
        "subnet_ids": cluster_config.subnet_ids,
        # pulumi-eks creates the cluster's security groups in this VPC (the default VPC without it).
        "vpc_id": cluster_config.vpc_id if cluster_config.subnet_ids else None,
        "tags": stack.config.tags,
    }, region)
    groups = [EksGpuNodeGroup(pool.name, _group_args(stack, pool, cluster), region) for pool in stack.pools]
    return cluster, groups


def _group_args(stack: Stack, pool: ResolvedPool, cluster: EksCluster) -> dict:
    autoscaling = pool.config.autoscaling
    return {
        "cluster": cluster.cluster,
        "node_role": cluster.node_role,  # one node role for the cluster, as its access entry already allows it
        "node_group_name": pool.name,
        "instance_type": pool.size.name,
        "desired_size": pool.nodes,
        "min_size": autoscaling.min_count if autoscaling else None,
        "max_size": autoscaling.max_count if autoscaling else None,
        "ami_type": pool.config.ami_type,  # the driver comes with the AMI: config refuses driver: operator on EKS
        "disk_size_gb": pool.config.disk_size_gb,
        "labels": pool.labels,
        "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints],
        "subnet_ids": pool.config.subnet_ids or stack.config.cluster.subnet_ids or None,
        "capacity_type": pool.config.capacity_type,
        "capacity_reservation": pool.config.capacity_reservation,
        "efa": pool.config.efa,
        "efa_interfaces": pool.size.efa_interfaces if pool.config.efa else None,
        "tags": stack.config.tags,
    }
