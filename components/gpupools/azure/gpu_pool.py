"""An AKS GPU node pool, optionally cut into MIG slices by AKS itself (``gpuInstanceProfile``).

AKS fixes the GPU instance profile when the pool is created, so a change of profile is declared as a
replacement (delete, then create under the same name) instead of an update Azure would reject half way.
"""


from typing import NotRequired, Optional, TypedDict

import pulumi
from pulumi_azure_native import containerservice

from .aliases import without_sdk_aliases

TYPE_TOKEN = "gpupools:index:AksGpuPool"
# Inputs Azure cannot change in place on an existing pool: changing them must replace the pool.
REPLACE_ON_CHANGES = ["gpuInstanceProfile", "vmSize", "osSKU", "gpuProfile"]


class AksGpuPoolArgs(TypedDict):
    """Inputs of ``AksGpuPool``."""

    cluster_name: pulumi.Input[str]
    """Name of the AKS cluster the pool joins."""
    resource_group_name: pulumi.Input[str]
    """Resource group of the cluster."""
    pool_name: str
    """AKS pool name: lowercase letters and digits, at most 12 characters."""
    vm_size: str
    """GPU VM size, e.g. Standard_ND96asr_v4."""
    count: int
    """Number of nodes."""
    gpu_instance_profile: NotRequired[str]
    """MIG1g, MIG2g, MIG3g, MIG4g or MIG7g; none for whole GPUs or operator-managed MIG."""
    gpu_driver: NotRequired[str]
    """Install (AKS installs the NVIDIA driver, default) or None (the GPU Operator does)."""
    os_sku: NotRequired[str]
    """Ubuntu (default), Ubuntu2204, Ubuntu2404; MIG pools do not support AzureLinux."""
    min_count: NotRequired[int]
    """Autoscaler lower bound (not for MIG pools)."""
    max_count: NotRequired[int]
    """Autoscaler upper bound (not for MIG pools)."""
    os_disk_size_gb: NotRequired[int]
    """OS disk size in GB."""
    node_labels: NotRequired[dict[str, str]]
    """Kubernetes labels of the pool's nodes."""
    node_taints: NotRequired[list[str]]
    """Taints as key=value:Effect, e.g. nvidia.com/gpu=present:NoSchedule."""
    kubernetes_version: NotRequired[str]
    """Kubernetes version of the pool's nodes (default: the cluster's)."""
    tags: NotRequired[dict[str, str]]
    """Azure tags."""


class AksGpuPool(pulumi.ComponentResource):
    """A user-mode AKS node pool of GPU VMs, tainted for GPU workloads, with an optional MIG profile."""

    pool_name: pulumi.Output[str]
    """Name of the AKS agent pool."""
    vm_size: pulumi.Output[str]
    """VM size of the pool."""
    gpu_instance_profile: pulumi.Output[Optional[str]]
    """The MIG profile AKS applied, if any."""

    def __init__(self, name: str, args: AksGpuPoolArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        autoscale = args.get("min_count") is not None and args.get("max_count") is not None
        driver = args.get("gpu_driver")
        pool = containerservice.AgentPool(
            f"{name}-pool",
            agent_pool_name=args["pool_name"],
            resource_name_=args["cluster_name"],
            resource_group_name=args["resource_group_name"],
            vm_size=args["vm_size"],
            count=args["count"],
            mode="User",
            os_type="Linux",
            os_sku=args.get("os_sku") or "Ubuntu",
            type="VirtualMachineScaleSets",
            gpu_instance_profile=args.get("gpu_instance_profile"),
            gpu_profile=containerservice.GPUProfileArgs(driver=driver) if driver else None,
            enable_auto_scaling=autoscale,
            min_count=args.get("min_count") if autoscale else None,
            max_count=args.get("max_count") if autoscale else None,
            os_disk_size_gb=args.get("os_disk_size_gb"),
            orchestrator_version=args.get("kubernetes_version"),
            node_labels=args.get("node_labels") or {},
            node_taints=args.get("node_taints") or [],
            tags=args.get("tags") or {},
            opts=pulumi.ResourceOptions(parent=self, replace_on_changes=REPLACE_ON_CHANGES, delete_before_replace=True,
                                        transformations=[without_sdk_aliases]),
        )
        self.pool_name = pool.name
        self.vm_size = pool.vm_size
        self.gpu_instance_profile = pool.gpu_instance_profile
        self.register_outputs({
            "poolName": self.pool_name, "vmSize": self.vm_size, "gpuInstanceProfile": self.gpu_instance_profile,
        })
