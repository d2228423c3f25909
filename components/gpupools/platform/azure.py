"""AKS wiring of ``GpuPlatform``: the cluster and one ``AksGpuPool`` per validated pool. Imports the Azure SDK.

Each pool's component keeps the config name (so count or label changes update it in place); the agent pool
it creates takes the pool's cloud name, which a surge pool changes with each generation (``rotation.py``).
"""

from __future__ import annotations

import pulumi

from ..domain.node_templates import aks_autoscaler_tags
from ..azure.cluster import AksCluster, AksClusterArgs
from ..azure.gpu_pool import AksGpuPool, AksGpuPoolArgs
from ..domain.stack import Stack
from ..domain.pools import ResolvedPool
from ..domain.pools import aks_fixed_fields
from .inputs import Deferred, given


def build(
    stack: Stack, deferred: Deferred, prefix: str, opts: pulumi.ResourceOptions
) -> tuple[AksCluster, list[AksGpuPool]]:
    """Components are named ``prefix`` + the cluster's or pool's name (``prefix`` + cluster when the name is an
    output)."""
    cluster_config = stack.config.cluster
    system = cluster_config.system_pool
    cluster_name = deferred.cluster_value("name", cluster_config.name)
    cluster = AksCluster(
        prefix + ("cluster" if "name" in deferred.cluster else cluster_config.name),
        given(
            AksClusterArgs,
            {
                "name": cluster_name,
                "resource_group_name": deferred.cluster_value("resource_group", cluster_config.resource_group),
                "location": cluster_config.location,
                "create": cluster_config.create,
                "kubernetes_version": cluster_config.kubernetes_version,
                "long_term_support": cluster_config.long_term_support or None,
                "system_pool_size": system.size if system else None,
                "system_pool_count": system.count if system else None,
                "capacity_reservation_group_ids": _reservation_groups(stack, deferred)
                if cluster_config.create
                else None,
                "tags": stack.config.tags,
            },
        ),
        opts,
    )
    pools = [
        AksGpuPool(
            prefix + pool.name, _pool_args(stack, deferred, index, pool, cluster), _pool_opts(pool, opts, cluster)
        )
        for index, pool in enumerate(stack.pools)
    ]
    return cluster, pools


def _reservation_groups(stack: Stack, deferred: Deferred) -> list | None:
    """Each capacity reservation group once (Azure refuses a second identical role assignment); a group given as
    an output counts as its own."""
    groups: list = []
    for index, pool in enumerate(stack.pools):
        group = deferred.pool_value(index, "capacity_reservation_group_id", pool.config.capacity_reservation_group_id)
        if group is not None and (not isinstance(group, str) or group not in groups):
            groups.append(group)
    return groups or None


def _pool_opts(pool: ResolvedPool, opts: pulumi.ResourceOptions, cluster: AksCluster) -> pulumi.ResourceOptions:
    """``AksGpuPool`` hands its ``delete_before_replace`` to the agent pool: False for surge, whose replacement
    has a new name and can be created first; True for recreate, whose replacement needs the old pool's name.
    A pool that draws from a reservation group waits for the cluster's role on the groups."""
    own = pulumi.ResourceOptions(delete_before_replace=pool.rotation == "recreate")
    if pool.config.capacity_reservation_group_id and cluster.capacity_reservation_access:
        own.depends_on = list(cluster.capacity_reservation_access)
    return pulumi.ResourceOptions.merge(opts, own)


def _pool_args(stack: Stack, deferred: Deferred, index: int, pool: ResolvedPool, cluster: AksCluster) -> AksGpuPoolArgs:
    autoscaling = pool.config.autoscaling
    # The fields fixed at creation, from the very values a surge pool's generation hashes.
    fixed = aks_fixed_fields(pool, stack.config.gpu_software.driver)
    args = {
        "cluster_name": cluster.cluster_name,
        "resource_group_name": cluster.resource_group_name,
        "pool_name": pool.cloud_pool_name,
        "vm_size": fixed["vmSize"],
        "count": deferred.pool_value(index, "count", pool.nodes),
        "gpu_instance_profile": fixed["gpuInstanceProfile"],
        # With the GPU Operator managing drivers, AKS must not install its own.
        "gpu_driver": fixed["gpuProfile"]["driver"],
        "os_sku": pool.config.os_sku,
        "min_count": autoscaling.min_count if autoscaling else None,
        "max_count": autoscaling.max_count if autoscaling else None,
        "os_disk_size_gb": pool.config.disk_size_gb,
        "node_labels": pool.labels,
        # Only our taints: AKS adds its own (the Spot taint) itself, as pool.cloud_taints records.
        "node_taints": [str(taint) for taint in pool.taints],
        "max_pods": fixed["maxPods"],
        "availability_zones": fixed["availabilityZones"],
        "capacity_reservation_group_id": deferred.pool_value(
            index, "capacity_reservation_group_id", pool.config.capacity_reservation_group_id
        ),
        "scale_set_priority": fixed["scaleSetPriority"],
        "scale_set_eviction_policy": fixed["scaleSetEvictionPolicy"],
        "spot_max_price": fixed["spotMaxPrice"],
        "tags": stack.config.tags,
        # The node template for AKS's autoscaler, in the Azure provider's tag encoding (empty for a fixed pool).
        "autoscaler_tags": aks_autoscaler_tags(stack, pool),
    }
    return given(AksGpuPoolArgs, args)
