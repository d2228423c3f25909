"""What the pinned NVIDIA charts do by default about *where* their daemonsets run.

The placement check (``gpupools.resolve.scheduling``) merges our values over these defaults, like Helm does,
and then asks the Kubernetes scheduling rules whether each daemonset reaches each pool. The installer's
chart is one table; ``DCGM_EXPORTER_DEFAULTS`` is the chart installed beside the device plugin for GPU
metrics. Only the facts it needs are here:

* ``values``: the subset of each chart's values.yaml that enables daemonsets or places their pods
  (``tests/charts/test_chart_values.py`` compares it with the reference copies of values.yaml).
* ``daemonsets``: for each daemonset, the values that switch it on (Helm ``condition`` semantics: the
  first path that is set decides), where its tolerations/nodeSelector/affinity come from, and the
  nodeSelector fixed in its template.
* ``deploy_labels``: the GPU Operator labels every GPU node (``nvidia.com/gpu.present=true``, or NFD's
  ``feature.node.kubernetes.io/pci-10de.present=true``) with ``nvidia.com/gpu.deploy.<operand>=true``,
  keeping a value already on the node, and each operand selects its own label. It adds
  ``nvidia.com/gpu.deploy.mig-manager=true`` only on MIG-capable nodes (GFD's ``nvidia.com/mig.capable``
  label) that have no such label yet (gpu-operator ``controllers/state_manager.go``: ``gpuStateLabels``,
  ``addGPUStateLabels``, ``hasMIGCapableGPU``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from .chart_refs import DCGM_EXPORTER, DEVICE_PLUGIN, DRA_DRIVER, GPU_OPERATOR, ChartRef
from .labels import GPU_PRESENT_LABEL, GPU_TAINT_KEY, MPS_CAPABLE_LABEL, NFD_GPU_LABEL

# What a daemonset does for a pool; the placement check decides from it where the daemonset belongs.
Role = Literal[
    "device-plugin",
    "gfd",
    "nfd-worker",
    "mps-daemon",
    "mig-manager",
    "operand",
    "metrics-exporter",
    "dra-kubelet-plugin",
]


@dataclass(frozen=True)
class DaemonSet:
    """One daemonset of a chart: its switch and where its pod spec's placement fields come from."""

    name: str
    role: Role
    enabled_by: tuple[str, ...] = ()  # value paths; the first one present decides, none present = deployed
    tolerations_at: str = "tolerations"
    node_selector_at: str | None = None
    affinity_at: str | None = None
    node_selector: Mapping[str, str] = field(default_factory=dict)  # fixed by the template


@dataclass(frozen=True)
class ChartDefaults:
    """The defaults of one chart version, and where they were read."""

    chart: ChartRef
    source: str
    values: Mapping[str, Any]
    daemonsets: tuple[DaemonSet, ...]
    deploy_labels: tuple[str, ...] = ()


def _gpu_toleration(operator: str, value: str | None = None) -> dict[str, str]:
    toleration = {"key": GPU_TAINT_KEY, "operator": operator}
    if value is not None:
        toleration["value"] = value
    return {**toleration, "effect": "NoSchedule"}


def _in(key: str, value: str) -> dict[str, Any]:
    return {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}


DEVICE_PLUGIN_DEFAULTS = ChartDefaults(
    chart=DEVICE_PLUGIN,
    source="k8s-device-plugin v0.20.0: deployments/helm/nvidia-device-plugin/values.yaml, Chart.yaml "
    "(nfd dependency condition nfd.enabled,gfd.enabled), templates/daemonset-*.yml",
    values={
        "devicePlugin": {"enabled": True},
        "gfd": {"enabled": False},
        "nodeSelector": {},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        _in(NFD_GPU_LABEL, "true"),
                        _in("feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA"),
                        _in(GPU_PRESENT_LABEL, "true"),
                    ]
                }
            }
        },
        "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}, _gpu_toleration("Exists")],
        # The NFD subchart's worker tolerates the GPU taint only with the value "present".
        "nfd": {
            "worker": {
                "tolerations": [
                    {"key": "node-role.kubernetes.io/master", "operator": "Equal", "value": "", "effect": "NoSchedule"},
                    _gpu_toleration("Equal", "present"),
                ]
            }
        },
    },
    daemonsets=(
        DaemonSet(
            "nvidia-device-plugin",
            "device-plugin",
            ("devicePlugin.enabled",),
            node_selector_at="nodeSelector",
            affinity_at="affinity",
        ),
        DaemonSet(
            "gpu-feature-discovery", "gfd", ("gfd.enabled",), node_selector_at="nodeSelector", affinity_at="affinity"
        ),
        DaemonSet(
            "mps-control-daemon",
            "mps-daemon",
            ("devicePlugin.enabled",),
            node_selector_at="nodeSelector",
            affinity_at="affinity",
            node_selector={MPS_CAPABLE_LABEL: "true"},
        ),
        DaemonSet(
            "nfd-worker",
            "nfd-worker",
            ("nfd.enabled", "gfd.enabled"),
            tolerations_at="nfd.worker.tolerations",
            node_selector_at="nfd.worker.nodeSelector",
            affinity_at="nfd.worker.affinity",
        ),
    ),
)


def _operand(name: str, role: Role, operand: str, enabled_by: tuple[str, ...], **extra: str) -> DaemonSet:
    """An operator operand: tolerations from ``daemonsets.tolerations``, selected by its deploy label."""
    selector = {f"nvidia.com/gpu.deploy.{operand}": "true", **extra}
    return DaemonSet(name, role, enabled_by, tolerations_at="daemonsets.tolerations", node_selector=selector)


GPU_OPERATOR_DEFAULTS = ChartDefaults(
    chart=GPU_OPERATOR,
    source="gpu-operator v26.7.0: deployments/gpu-operator/values.yaml, assets/state-*/ daemonsets, "
    "controllers/state_manager.go",
    values={
        "nfd": {"enabled": True},
        "daemonsets": {"tolerations": [_gpu_toleration("Exists")]},
        "driver": {"enabled": True},
        "toolkit": {"enabled": True},
        "devicePlugin": {"enabled": True},
        "dcgmExporter": {"enabled": True},
        "gfd": {"enabled": True},
        "migManager": {"enabled": True},
        "node-feature-discovery": {
            "worker": {
                "tolerations": [
                    {
                        "key": "node-role.kubernetes.io/control-plane",
                        "operator": "Equal",
                        "value": "",
                        "effect": "NoSchedule",
                    },
                    _gpu_toleration("Exists"),
                ]
            }
        },
    },
    daemonsets=(
        _operand("nvidia-driver-daemonset", "operand", "driver", ("driver.enabled",)),
        _operand("nvidia-container-toolkit-daemonset", "operand", "container-toolkit", ("toolkit.enabled",)),
        _operand("nvidia-operator-validator", "operand", "operator-validator", ()),
        _operand("nvidia-device-plugin-daemonset", "device-plugin", "device-plugin", ("devicePlugin.enabled",)),
        _operand(
            "nvidia-device-plugin-mps-control-daemon",
            "mps-daemon",
            "device-plugin",
            ("devicePlugin.enabled",),
            **{MPS_CAPABLE_LABEL: "true"},
        ),
        _operand("gpu-feature-discovery", "gfd", "gpu-feature-discovery", ("gfd.enabled",)),
        _operand("nvidia-mig-manager", "mig-manager", "mig-manager", ("migManager.enabled",)),
        _operand("nvidia-dcgm-exporter", "operand", "dcgm-exporter", ("dcgmExporter.enabled",)),
        DaemonSet(
            "node-feature-discovery-worker",
            "nfd-worker",
            ("nfd.enabled",),
            tolerations_at="node-feature-discovery.worker.tolerations",
            node_selector_at="node-feature-discovery.worker.nodeSelector",
            affinity_at="node-feature-discovery.worker.affinity",
        ),
    ),
    deploy_labels=tuple(
        f"nvidia.com/gpu.deploy.{operand}"
        for operand in (
            "driver",
            "gpu-feature-discovery",
            "container-toolkit",
            "device-plugin",
            "dcgm",
            "dcgm-exporter",
            "node-status-exporter",
            "operator-validator",
            "client",  # v26.7.0: third-party GPU clients (catalog.labels.GPU_CLIENT_DEPLOY_LABEL)
        )
    ),
)

DCGM_EXPORTER_DEFAULTS = ChartDefaults(
    chart=DCGM_EXPORTER,
    source="dcgm-exporter 4.8.2 (git tag 4.5.3-4.8.2): deployment/values.yaml, templates/daemonset.yaml "
    "(one DaemonSet, always rendered; tolerations, nodeSelector and affinity straight from values)",
    values={
        "nodeSelector": {},
        # Only the control plane's taint: without our values the exporter would stay off tainted GPU nodes.
        "tolerations": [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {},
    },
    daemonsets=(
        DaemonSet("dcgm-exporter", "metrics-exporter", node_selector_at="nodeSelector", affinity_at="affinity"),
    ),
)


# The DRA driver's kubelet plugin publishes each node's GPUs as ResourceSlices, so it must reach every GPU pool
# (it is the device plugin's counterpart). Its template renders when GPUs or ComputeDomains are on; the controller
# is a Deployment (ComputeDomains only) and places nothing on GPU nodes.
DRA_DRIVER_DEFAULTS = ChartDefaults(
    chart=DRA_DRIVER,
    source="dra-driver-nvidia-gpu v0.4.1: deployments/helm/dra-driver-nvidia-gpu/values.yaml (kubeletPlugin.*), "
    "templates/kubeletplugin.yaml (rendered if resources.computeDomains.enabled or resources.gpus.enabled)",
    values={
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": True}},
        "kubeletPlugin": {
            "nodeSelector": {},
            "tolerations": [_gpu_toleration("Exists")],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            _in(NFD_GPU_LABEL, "true"),
                            _in("feature.node.kubernetes.io/pci-0302_10de.present", "true"),
                            _in("feature.node.kubernetes.io/pci-0300_10de.present", "true"),
                            _in("feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA"),
                            _in(GPU_PRESENT_LABEL, "true"),
                        ]
                    }
                }
            },
        },
    },
    daemonsets=(
        # Our values always set resources.gpus.enabled, which then decides (the template's "or" of both switches).
        DaemonSet(
            "dra-driver-nvidia-gpu-kubelet-plugin",
            "dra-kubelet-plugin",
            ("resources.gpus.enabled",),
            tolerations_at="kubeletPlugin.tolerations",
            node_selector_at="kubeletPlugin.nodeSelector",
            affinity_at="kubeletPlugin.affinity",
        ),
    ),
)
