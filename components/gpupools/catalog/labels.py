"""Well-known names: the labels, taints and resource names gpupools, NVIDIA's software and the clouds put on nodes.

One table, so a label is spelled once and every layer (rules, chart values, components, ``verify``) reads it
from here. Each entry says who sets it and where that is written down.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- Taints ------------------------------------------------------------------------------------------------------
# The taint every GPU pool carries. The value "present" matters: the device plugin chart's NFD worker
# tolerates `nvidia.com/gpu` only with operator Equal and value "present" (chart 0.20.0 values.yaml).
GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_TAINT_VALUE = "present"
GPU_TAINT_EFFECT = "NoSchedule"


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

# --- Labels gpupools sets on a pool's nodes ----------------------------------------------------------------------
POOL_LABEL = "gpupools.io/pool"
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
MIG_MANAGER_DEPLOY_LABEL = "nvidia.com/gpu.deploy.mig-manager"
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
# The MPS control daemon of both charts selects it; only GFD would set it, so MPS pools carry it themselves.
MPS_CAPABLE_LABEL = "nvidia.com/mps.capable"
# The device plugin config of nodes without the config label; a sharing pool's config takes the pool's name.
DEFAULT_DEVICE_PLUGIN_CONFIG = "default"

# The labels above, which ``GpuPlatform`` hands the pool components: allowed there under their reserved domains.
GPUPOOLS_NODE_LABELS = frozenset(
    {
        POOL_LABEL,
        GPU_PRESENT_LABEL,
        MIG_CONFIG_LABEL,
        MIG_MANAGER_DEPLOY_LABEL,
        DEVICE_PLUGIN_CONFIG_LABEL,
        MPS_CAPABLE_LABEL,
    }
)

# --- Labels NVIDIA's software sets -------------------------------------------------------------------------------
# Set by the GPU Operator's MIG manager: pending, rebooting, then success once the layout is applied, or failed
# (NVIDIA gpu-operator-mig docs). Workloads select on success so none lands on a GPU still being cut.
MIG_CONFIG_STATE_LABEL = "nvidia.com/mig.config.state"
MIG_CONFIG_STATE_READY = "success"
MIG_CONFIG_STATE_FAILED = "failed"
MIG_CONFIG_STATES_IN_PROGRESS = frozenset({"pending", "rebooting", None})
# Set to true on GPU nodes by the GPU Operator from v26.7.0 (controllers/state_manager.go gpuStateLabels); the MIG
# manager (mig-parted v0.15.0 pkg/mig/reconfigure/reconfigure.go) flips it to paused-for-mig-change around a layout
# change and waits for every DaemonSet pod whose nodeSelector has this key to leave the node: a third-party client.
GPU_CLIENT_DEPLOY_LABEL = "nvidia.com/gpu.deploy.client"
# Set by NFD on nodes with an NVIDIA (vendor 10de) PCI device; the device plugin's affinity accepts it.
NFD_GPU_LABEL = "feature.node.kubernetes.io/pci-10de.present"
# Set by GPU feature discovery (k8s-device-plugin internal/lm/nvml.go): any GPU MIG-capable; MPS sharing configured.
MIG_CAPABLE_LABEL = "nvidia.com/mig.capable"

# --- Labels the clouds set ---------------------------------------------------------------------------------------
# Labels the clouds put on GPU nodes that we may rely on (each cloud's ``Cloud.gpu_labels``); EKS guarantees none.
AKS_GPU_LABELS: dict[str, str] = {"kubernetes.azure.com/accelerator": "nvidia"}

# --- Extended resources the device plugin advertises -------------------------------------------------------------
GPU_RESOURCE = "nvidia.com/gpu"


def mig_resource_name(profile: str) -> str:
    """``1g.5gb`` -> ``nvidia.com/mig-1g.5gb``; ``1g.5gb+me`` -> ``nvidia.com/mig-1g.5gb.me`` (no '+' in resource
    names)."""
    return f"nvidia.com/mig-{profile.replace('+', '.')}"
