"""An AKS GPU node pool, optionally cut into MIG slices by AKS itself (``gpuInstanceProfile``).

AKS fixes some settings when the pool is created (the MIG profile, VM size, max pods, zones, Spot), so
a change to one of them is declared as a replacement instead of an update Azure would reject half way.
The list is ``immutable_fields.AKS_AGENT_POOL``. How the replacement goes is the component's own
``delete_before_replace`` option, handed to the agent pool: unset or True deletes the old pool first (the
replacement needs its name: its workloads have nowhere to go meanwhile); False creates the new pool first,
which only works when the replacement gets a new ``pool_name`` (``gpupools.rotation``: surge).
"""

from typing import NotRequired, Optional, TypedDict, cast

import pulumi
from pulumi_azure_native import containerservice

from ..component_args.docstrings import documented
from ..component_args.azure import AksGpuPoolArgsModel
from ..component_args.checking import check_args
from ..catalog.clouds import DEFAULT_OS_SKU
from ..catalog.fixed_fields import AKS_AGENT_POOL, replace_on_changes
from ..catalog.labels import GPU_TAINT
from .aliases import without_sdk_aliases
from .unset_properties import without_unset_properties

TYPE_TOKEN = "gpupools:index:AksGpuPool"
# Inputs Azure cannot change in place on an existing pool: changing them must replace the pool.
REPLACE_ON_CHANGES = replace_on_changes(AKS_AGENT_POOL)


class AksGpuPoolArgs(TypedDict):
    """Inputs of ``AksGpuPool``."""

    cluster_name: pulumi.Input[str]
    """Name of the AKS cluster the pool joins."""
    resource_group_name: pulumi.Input[str]
    """Resource group of the cluster."""
    pool_name: str
    """AKS pool name: lowercase letters and digits, at most 12; a new one lets a replacement come first."""
    vm_size: str
    """GPU VM size, e.g. Standard_ND96asr_v4."""
    count: int
    """Number of nodes."""
    gpu_instance_profile: NotRequired[str]
    """MIG1g, MIG2g, MIG3g, MIG4g or MIG7g; none for whole GPUs or operator-managed MIG."""
    gpu_driver: NotRequired[str]
    """Install (AKS installs the NVIDIA driver, default) or None (the GPU Operator does)."""
    os_sku: NotRequired[str]
    """Ubuntu (default), Ubuntu2204, AzureLinux or AzureLinux3; AKS changes it in place."""
    min_count: NotRequired[int]
    """Autoscaler lower bound (AKS's managed cluster autoscaler)."""
    max_count: NotRequired[int]
    """Autoscaler upper bound (AKS's managed cluster autoscaler)."""
    os_disk_size_gb: NotRequired[int]
    """OS disk size in GB."""
    node_labels: NotRequired[dict[str, str]]
    """Kubernetes labels of the pool's nodes."""
    node_taints: NotRequired[list[str]]
    (
        """Taints as key=value:Effect; unset: nvidia.com/gpu=present:NoSchedule (the taint GPU workloads tolerate), """
        """an explicit [] leaves the pool untainted."""
    )
    kubernetes_version: NotRequired[str]
    """Kubernetes version of the pool's nodes (default: the cluster's)."""
    max_pods: NotRequired[int]
    """Pods per node, 10..250 (AKS default with Azure CNI Overlay: 250); fixed at creation."""
    availability_zones: NotRequired[list[str]]
    """Availability zones of the nodes, "1".."3"; fixed at creation."""
    capacity_reservation_group_id: NotRequired[str]
    """Resource id of a capacity reservation group the pool's VMs draw from."""
    scale_set_priority: NotRequired[str]
    (
        """Regular (default) or Spot; fixed at creation. AKS taints Spot nodes """
        """kubernetes.azure.com/scalesetpriority=spot:NoSchedule itself."""
    )
    scale_set_eviction_policy: NotRequired[str]
    """Spot only: Delete (AKS default) or Deallocate; fixed at creation."""
    spot_max_price: NotRequired[float]
    """Spot only: the most to pay per VM hour in US dollars, or -1 for up to the on-demand price; fixed at creation."""
    tags: NotRequired[dict[str, str]]
    """Azure tags."""
    autoscaler_tags: NotRequired[dict[str, str]]
    (
        """The cluster autoscaler's node-template tags (k8s.io_cluster-autoscaler_node-template_label_..., """
        """_taint_..., _resources_...) for the pool's labels, taints and GPU resources, so it can scale from zero; """
        """merged over tags (AKS copies pool tags to the VMSS). GpuPlatform fills them in for an autoscaled pool. """
        """50 tags at most together."""
    )


@documented
class AksGpuPool(pulumi.ComponentResource):
    """A user-mode AKS node pool of GPU VMs, tainted for GPU workloads (nvidia.com/gpu=present:NoSchedule unless
    node_taints says otherwise), with an optional MIG profile."""

    pool_name: pulumi.Output[str]
    """Name of the AKS agent pool."""
    vm_size: pulumi.Output[str]
    """VM size of the pool."""
    gpu_instance_profile: pulumi.Output[Optional[str]]
    """The MIG profile AKS applied, if any."""

    def __init__(self, name: str, args: AksGpuPoolArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register the AksGpuPool under ``name``; ``args`` is checked first (``ComponentArgsError`` names each bad
        key).

        :param name: the Pulumi resource name; children are named ``<name>-...``.
        :param args: ``AksGpuPoolArgs``: a dict whose keys help() lists under Args below (an editor
            shows each key's docstring as it completes the keys).
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(AksGpuPoolArgsModel, "AksGpuPool", name, args)
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
            os_sku=args.get("os_sku") or DEFAULT_OS_SKU,
            type="VirtualMachineScaleSets",
            gpu_instance_profile=args.get("gpu_instance_profile"),
            gpu_profile=containerservice.GPUProfileArgs(driver=driver) if driver else None,
            enable_auto_scaling=autoscale,
            min_count=args.get("min_count") if autoscale else None,
            max_count=args.get("max_count") if autoscale else None,
            os_disk_size_gb=args.get("os_disk_size_gb"),
            orchestrator_version=args.get("kubernetes_version"),
            max_pods=args.get("max_pods"),
            availability_zones=args.get("availability_zones") or None,
            capacity_reservation_group_id=args.get("capacity_reservation_group_id"),
            scale_set_priority=args.get("scale_set_priority"),
            scale_set_eviction_policy=args.get("scale_set_eviction_policy"),
            spot_max_price=args.get("spot_max_price"),
            node_labels=args.get("node_labels") or {},
            # Unset: the GPU taint the class promises; a list given (even []) is taken as is.
            node_taints=[str(GPU_TAINT)] if (taints := args.get("node_taints")) is None else taints,
            tags={**(args.get("tags") or {}), **(args.get("autoscaler_tags") or {})},
            opts=pulumi.ResourceOptions(
                parent=self,
                replace_on_changes=REPLACE_ON_CHANGES,
                delete_before_replace=_delete_before_replace(opts),
                # Autoscaled: AKS's autoscaler owns the node count, so neither a changed
                # count nor `pulumi up --refresh` resets the nodes it added or removed.
                ignore_changes=["count"] if autoscale else None,
                # The engine does not make a child wait for its parent's dependencies
                # (e.g. the cluster's role on a capacity reservation group): pass them on.
                depends_on=opts.depends_on if opts is not None else None,
                transformations=[without_sdk_aliases, _WITHOUT_UNSET],
            ),
        )
        self.pool_name = pool.name
        # Set from args["vm_size"] above: the SDK types the output Optional only because the input is.
        self.vm_size = cast(pulumi.Output[str], pool.vm_size)
        self.gpu_instance_profile = pool.gpu_instance_profile
        self.register_outputs(
            {
                "poolName": self.pool_name,
                "vmSize": self.vm_size,
                "gpuInstanceProfile": self.gpu_instance_profile,
            }
        )


# The agent pool's outputs this component reads (its outputs below); the rest of them it never reads.
_WITHOUT_UNSET = without_unset_properties(["name", "vm_size", "gpu_instance_profile"])


def _delete_before_replace(opts: Optional[pulumi.ResourceOptions]) -> bool:
    """The component's ``delete_before_replace``, True when unset: a same-named replacement cannot come first."""
    given = opts.delete_before_replace if opts is not None else None
    return True if given is None else bool(given)
