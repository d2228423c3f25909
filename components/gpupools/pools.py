"""A GPU pool after validation: its size and GPU resolved, its MIG plan decided, its labels and taint computed.

Components, chart values, capacity and the plan all read this one view, so they cannot disagree on
what a pool is. Pure data: no Pulumi, no pydantic validation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .catalog import GpuModel, InstanceSize
from .rotation import Rotation, cloud_pool_name

if TYPE_CHECKING:  # config imports this module to build pools; only annotations need these names here
    from .config.models import GpuPoolConfig, Sharing

# The taint every GPU pool carries. The value "present" matters: the device plugin chart's NFD worker
# tolerates `nvidia.com/gpu` only with operator Equal and value "present" (chart 0.20.0 values.yaml).
GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_TAINT_VALUE = "present"
GPU_TAINT_EFFECT = "NoSchedule"

POOL_LABEL = "gpupools.io/pool"
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
# Set by the GPU Operator's MIG manager: pending, rebooting, then success once the layout is applied
# (NVIDIA gpu-operator-mig docs). Workloads select on success so none lands on a GPU still being cut.
MIG_CONFIG_STATE_LABEL = "nvidia.com/mig.config.state"
MIG_CONFIG_STATE_READY = "success"
MIG_MANAGER_DEPLOY_LABEL = "nvidia.com/gpu.deploy.mig-manager"
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
# The MPS control daemon of both charts selects it; only GFD would set it, so MPS pools carry it themselves.
MPS_CAPABLE_LABEL = "nvidia.com/mps.capable"
# The device plugin config of nodes without the config label; a sharing pool's config takes the pool's name.
DEFAULT_DEVICE_PLUGIN_CONFIG = "default"

AKS_GPU_INSTANCE_PROFILES = ("MIG1g", "MIG2g", "MIG3g", "MIG4g", "MIG7g")


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        """``key=value:Effect``: how kubectl and AKS node pools spell a taint."""
        return f"{self.key}={self.value}:{self.effect}"

    def kubernetes_toleration(self) -> dict[str, str]:
        """The toleration a workload needs: ``Exists`` so it keeps working whatever the value."""
        return {"key": self.key, "operator": "Exists", "effect": self.effect}


GPU_TAINT = Taint(GPU_TAINT_KEY, GPU_TAINT_VALUE, GPU_TAINT_EFFECT)
# AKS puts this taint on every node of a Spot pool itself (AKS "Add an Azure Spot node pool", limitations).
AKS_SPOT_TAINT = Taint("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule")


@dataclass(frozen=True)
class MigPlan:
    """How every GPU of a pool is partitioned and who does it.

    ``applied_by`` is ``aks`` when AKS sets the profile at pool creation (``gpuInstanceProfile``), and
    ``operator`` when the GPU Operator's MIG manager applies ``layout_name`` from the node label.
    """

    devices: dict[str, int]
    layout_name: str
    applied_by: Literal["aks", "operator"]
    custom: bool = False
    aks_profile: str | None = None

    @property
    def profiles(self) -> list[str]:
        return sorted(self.devices)

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
    # How a change to a field fixed at creation replaces the pool, and (surge) the generation of those fields.
    rotation: Rotation = "recreate"
    generation: str | None = None

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
    def gpus_per_node(self) -> int:
        return self.size.gpus

    @property
    def nodes(self) -> int:
        return self.config.count

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
