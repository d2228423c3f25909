"""A GPU pool after validation: its size and GPU resolved, its MIG plan decided, its labels and taint computed.

Components, chart values, capacity and the plan all read this one view, so they cannot disagree on
what a pool is. Pure data: no Pulumi, no pydantic validation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from ..catalog.gpus import GpuModel
from ..catalog.instances import InstanceSize
from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.clouds import CLOUD_DEFAULTS
from ..catalog.labels import GPU_TAINT, MIG_CONFIG_LABEL, MIG_CONFIG_STATE_LABEL, MIG_CONFIG_STATE_READY, Taint
from ..catalog.installers import Capability
from ..catalog.provisioners import NodeProvisioner, provisioner_named
from ..config.models import GpuPoolConfig, MigStrategy, Rotation, Sharing
from .naming import cloud_pool_name, generation
from .node_layout import NodeLayout

# EKS launch template: the node group's template is one resource for the node group's whole life, so only
# whether there is one decides ``launchTemplate.id`` (its contents change in place, as new versions).
LAUNCH_TEMPLATE = "launchTemplate.id"


@dataclass(frozen=True)
class MigPlan:
    """How every GPU of a pool's nodes is partitioned and who does it.

    ``node`` is the one model of a node's GPUs (``node_layout.NodeLayout``): one group when every GPU is cut
    alike, several (some maybe whole) for a per-GPU layout. ``applied_by`` is ``aks`` when AKS sets the profile at
    pool creation (``gpuInstanceProfile``), and ``operator`` when the GPU Operator's MIG manager applies
    ``layout_name`` from the node label.
    """

    node: NodeLayout
    layout_name: str
    applied_by: Literal["aks", "operator"]
    custom: bool = False
    aks_profile: str | None = None

    @property
    def profiles(self) -> list[str]:
        return self.node.profiles

    @property
    def devices(self) -> dict[str, int]:
        """The per-GPU mix of a uniform node; a ValueError for a per-GPU layout (read ``node``)."""
        return self.node.per_gpu

    @property
    def devices_per_gpu(self) -> int:
        return sum(self.devices.values())


@dataclass(frozen=True)
class ResolvedPool:
    """A validated GPU pool with everything derived from the catalog and the stack's GPU software."""

    name: str
    cloud: str
    size: InstanceSize
    config: GpuPoolConfig
    # How the device plugin advertises MIG devices (the stack's gpuSoftware.migStrategy): capacity depends on it.
    mig_strategy: MigStrategy = "single"
    mig: MigPlan | None = None
    device_plugin_config: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    # The taints we ask the cloud to set (components pass exactly these).
    taints: tuple[Taint, ...] = (GPU_TAINT,)
    # Taints the cloud adds by itself (AKS Spot pools); never passed to the cloud, but tolerated by our charts.
    cloud_taints: tuple[Taint, ...] = ()
    # AKS: the pods per node the pool is created with (from config, or computed from its slices); None on EKS.
    max_pods: int | None = None
    # Daemonset pods per node: the NVIDIA ones the placement check lands here, plus AKS's own (azure only).
    daemonset_pods: int = 0
    # How a change to a field fixed at creation replaces the pool (surge: ``generation`` names each generation).
    rotation: Rotation = "recreate"
    # The stack's gpuSoftware.driver (AKS gpuProfile.driver) and the cluster's subnets (EKS node groups without
    # their own): fixed at creation, so part of the generation.
    gpu_driver: str = "preinstalled"
    cluster_subnet_ids: tuple[str, ...] = ()
    # Served by NVIDIA's DRA driver (gpuSoftware.installer dra-driver): its GPUs are ResourceSlice devices, not
    # extended resources a device plugin advertises.
    dra: bool = False

    @cached_property
    def generation(self) -> str | None:
        """``surge`` pools: a hash of the inputs fixed at creation, exactly as the component sends them, and of the
        MIG layout where the GPU Operator cuts it (``layout_in_generation``); else None."""
        if self.rotation != "surge":
            return None
        fixed = dict(cloud_named(self.cloud).facet(PoolGeneration).fixed_fields(self))
        if self.layout_in_generation and self.mig is not None:
            fixed[MIG_CONFIG_LABEL] = self.mig.node.to_json()
        return generation(self.name, fixed)

    @property
    def layout_in_generation(self) -> bool:
        """A surge pool whose GPUs the GPU Operator's MIG manager cuts: its layout (per GPU) is in the generation, so
        a layout change is a new pool created first, not a live re-cut with the slices offline (``plan.recut``).
        Its cloud name differs from the one gpupools 0.2.0 gave it, which hashed no layout."""
        return self.rotation == "surge" and self.mig is not None and self.mig.applied_by == "operator"

    @property
    def cloud_pool_name(self) -> str:
        """The AKS agent pool or EKS node group name: the config name, plus the generation for ``surge`` pools.

        Kubernetes objects, labels and outputs keep using ``name``: it stays the same across generations.
        """
        return cloud_pool_name(self.cloud, self.name, self.generation)

    @property
    def node_taints(self) -> tuple[Taint, ...]:
        """Every taint the nodes carry: ours and the cloud's; what pods must tolerate."""
        return self.taints + self.cloud_taints

    @property
    def gpu(self) -> GpuModel:
        return self.size.gpu

    @property
    def provisioner(self) -> NodeProvisioner:
        """Who makes the pool's nodes (``catalog/provisioners.py``): a node group, or Karpenter."""
        return provisioner_named(self.config.provisioner)

    @property
    def gpus_per_node(self) -> int:
        return self.size.gpus

    @property
    def nodes(self) -> int:
        """The nodes the pool runs: its count, or none at rest where nodes come with pending pods (Karpenter)."""
        return self.config.count if self.provisioner.fixed_node_count else 0

    @property
    def node_bounds(self) -> tuple[int, int] | None:
        """The fewest and most nodes the pool can have: its autoscaling bounds, or 0..maxCount where nodes come with
        pending pods; None for a fixed count."""
        if not self.provisioner.fixed_node_count:
            return 0, self.config.max_count or 0
        bounds = self.config.autoscaling
        return (bounds.min_count, bounds.max_count) if bounds is not None else None

    @property
    def sharing(self) -> Sharing | None:
        return self.config.sharing

    @property
    def readiness_labels(self) -> dict[str, str]:
        """Labels the nodes gain only once they are ready for GPU work (never set at creation).

        Where the GPU Operator's MIG manager cuts the GPUs, the device plugin first advertises whole GPUs
        (NVIDIA/gpu-operator#2670), so workloads wait for ``nvidia.com/mig.config.state=success``, the
        pattern of Microsoft's AKS MLOps best practices. The autoscaler's node template must carry them too.
        """
        if self.mig is not None and self.mig.applied_by == "operator":
            return {MIG_CONFIG_STATE_LABEL: MIG_CONFIG_STATE_READY}
        return {}


# A provisioner's domain facets (attached by its module, e.g. ``domain/karpenter_objects.py``): the labels its nodes
# carry beyond the pool's own, and the inputs that decide its capacity in the plan.
NODE_LABELS: Capability[Callable[[ResolvedPool], dict[str, str]]] = Capability("node labels")
# What the provisioner is told a node will advertise before it exists (Karpenter's NodeOverlay), or None.
PROMISED_CAPACITY: Capability[Callable[[ResolvedPool], dict[str, int] | None]] = Capability("promised capacity")


def node_labels(pool: ResolvedPool) -> dict[str, str]:
    """The labels a pool's nodes carry as they register: the pool's, and those its provisioner adds."""
    if pool.provisioner.supports(NODE_LABELS):
        return pool.provisioner.facet(NODE_LABELS)(pool)
    return dict(pool.labels)


@dataclass(frozen=True)
class PoolGeneration:
    """A cloud's facet for ``surge`` pools: the inputs fixed at creation exactly as its pool component sends them."""

    capability: ClassVar[str] = "rotation surge (pool generations)"
    fixed_fields: Callable[[ResolvedPool], dict[str, Any]]


def aks_gpu_driver(gpu_software_driver: str) -> str:
    """AKS's ``gpuProfile.driver``: ``None`` where the GPU Operator installs the driver, else AKS ``Install``s it."""
    return "None" if gpu_software_driver == "operator" else "Install"


def aks_fixed_fields(pool: ResolvedPool, gpu_software_driver: str) -> dict[str, Any]:
    """The ``AKS_AGENT_POOL`` inputs exactly as ``AksGpuPool`` sends them (wire names; unset ones None)."""
    config = pool.config
    return _defaults_unset(
        {
            "vmSize": pool.size.name,
            "maxPods": pool.max_pods,
            "availabilityZones": list(config.availability_zones) or None,
            "scaleSetPriority": config.priority,
            "spotMaxPrice": config.spot_max_price,
            "scaleSetEvictionPolicy": config.resolved_eviction_policy,
            "gpuInstanceProfile": pool.mig.aks_profile if pool.mig and pool.mig.applied_by == "aks" else None,
            "gpuProfile": {"driver": aks_gpu_driver(gpu_software_driver)},
        }
    )


def eks_fixed_fields(pool: ResolvedPool, cluster_subnet_ids: list[str], default_ami_type: str) -> dict[str, Any]:
    """The ``EKS_NODE_GROUP`` inputs as ``EksGpuNodeGroup`` sends them to its managed node group.

    ``nodeRoleArn`` is the cluster's one node role for every group (None here: the same for all generations).
    Subnet ids given as outputs are hashed as their placeholders, so changing such an output keeps the name.
    """
    config = pool.config
    capacity_block = config.capacity_type == "CAPACITY_BLOCK"
    template = bool(config.capacity_reservation or capacity_block or config.efa)  # LaunchTemplateSpec.needed
    return _defaults_unset(
        {
            "instanceTypes": None if capacity_block else [pool.size.name],
            "capacityType": config.capacity_type,
            "amiType": config.ami_type or default_ami_type,
            "diskSize": None if template else config.disk_size_gb,
            "subnetIds": list(config.subnet_ids or cluster_subnet_ids) or None,
            "nodeRoleArn": None,
            LAUNCH_TEMPLATE: "gpupools launch template" if template else None,
        }
    )


def _defaults_unset(fields: dict[str, Any]) -> dict[str, Any]:
    """A field written with the cloud's own default is sent (and hashed) unset, as if left out: the same value
    gives the same inputs and the same generation either way (``catalog.clouds.CLOUD_DEFAULTS``)."""
    return {
        key: None if key in CLOUD_DEFAULTS and value == CLOUD_DEFAULTS[key] else value for key, value in fields.items()
    }
