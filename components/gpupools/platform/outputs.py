"""The stack program's outputs, named for other stacks to read with ``StackReference`` (docs/reuse.md)."""

from __future__ import annotations

import pulumi

from ..domain.capacity import stack_capacity
from ..domain.dra import classes_by_pool
from ..domain.workloads import pool_node_selector, pool_tolerations
from .builders import builder
from .component import GpuPlatform


def export(platform: GpuPlatform) -> None:
    stack = platform.stack
    capacity = {c.pool: c for c in stack_capacity(stack.pools)}
    pulumi.export("cloud", stack.cloud)
    pulumi.export("clusterName", platform.cluster_name)
    for output, attribute in builder(stack.cloud).outputs:
        pulumi.export(output, getattr(platform, attribute))
    pulumi.export("kubeconfig", platform.kubeconfig)
    pulumi.export("gpuToleration", platform.gpu_toleration)
    pulumi.export("gpuSoftware", platform.gpu_software)
    dra = classes_by_pool(stack)
    pulumi.export(
        "gpuPools",
        {
            pool.name: {
                "size": pool.size.name,
                "gpu": pool.gpu.name,
                "nodes": pool.nodes,
                "migLayout": pool.mig.layout_name if pool.mig else None,
                # A per-GPU layout: each group of GPUs, in device order, with its mix or whole.
                **({"migGpus": pool.mig.node.to_json()} if pool.mig and not pool.mig.node.is_uniform else {}),
                "resourcesPerNode": capacity[pool.name].per_node,
                "resourcesTotal": capacity[pool.name].total,
                "nodeSelector": pool_node_selector(pool),
                # Every toleration a pod needs here (gpuToleration alone misses AKS Spot's scalesetpriority taint).
                "tolerations": pool_tolerations(pool),
                # The AKS agent pool or EKS node group; a surge pool's changes with each generation, its label does not.
                "cloudPoolName": pool.cloud_pool_name,
                "rotation": pool.rotation,
                # installer dra-driver only: the DeviceClass and ResourceClaimTemplate of each device kind.
                **({"draClasses": dra.get(pool.name, [])} if dra else {}),
            }
            for pool in stack.pools
        },
    )
