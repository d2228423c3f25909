"""Stack outputs, named for other stacks to read with ``StackReference`` (documented in the README)."""

import pulumi

from gpupools.capacity import stack_capacity
from gpupools.charts.refs import chart_for
from gpupools.config import Stack
from gpupools.workloads import gpu_toleration, pool_node_selector


def export(stack: Stack, cluster) -> None:
    gpu_software = stack.config.gpu_software
    capacity = {c.pool: c for c in stack_capacity(stack.pools, gpu_software.mig_strategy)}
    pulumi.export("cloud", stack.cloud)
    pulumi.export("clusterName", cluster.cluster_name)
    if stack.cloud == "azure":
        pulumi.export("resourceGroupName", cluster.resource_group_name)
    pulumi.export("kubeconfig", cluster.kubeconfig)
    pulumi.export("gpuToleration", gpu_toleration())
    pulumi.export("gpuSoftware", {
        "installer": gpu_software.installer,
        "chart": chart_for(gpu_software.installer).name,
        "version": gpu_software.resolved_version,
        "namespace": gpu_software.resolved_namespace,
        "migStrategy": gpu_software.mig_strategy,
    })
    pulumi.export("gpuPools", {
        pool.name: {
            "size": pool.size.name,
            "gpu": pool.gpu.name,
            "nodes": pool.nodes,
            "migLayout": pool.mig.layout_name if pool.mig else None,
            "resourcesPerNode": capacity[pool.name].per_node,
            "resourcesTotal": capacity[pool.name].total,
            "nodeSelector": pool_node_selector(pool),
        }
        for pool in stack.pools
    })
