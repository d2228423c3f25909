"""What a rolled-out stack should show on its nodes: per pool, the resources the plan promised and where to look.

Pure: derived from the validated stack and the capacity rules, so ``verify`` checks the very numbers
``check`` and ``plan`` printed. The device plugin's labels and names are the ones the real charts give
its pods (device plugin chart 0.20.0 ``templates/_helpers.tpl``; GPU Operator v26.7.0
``assets/state-device-plugin/0500_daemonset.yaml``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..domain.capacity import stack_capacity
from ..catalog import installers
from ..catalog.installers import Capability
from ..catalog.chart_defaults import DRA_DRIVER_DEFAULTS
from ..catalog.chart_refs import DEVICE_PLUGIN, DRA_DRIVER
from ..domain.stack import Stack
from ..catalog.labels import MIG_CONFIG_LABEL, POOL_LABEL

# The GPU Operator creates its device plugin operand under this fixed name and pod label.
OPERATOR_DEVICE_PLUGIN_DAEMONSET = "nvidia-device-plugin-daemonset"


@dataclass(frozen=True)
class DevicePluginTarget:
    """The daemonset whose pod must be ready on every GPU node, and the pod labels that find it.

    In the device plugin chart the GFD and MPS daemonsets share the pod labels, so pods are also matched
    by their owning daemonset's name.
    """

    namespace: str
    daemonset: str
    pod_labels: dict[str, str]
    kind: str = "device plugin"  # how reports name it: the DRA driver's is its kubelet plugin

    @property
    def label_selector(self) -> str:
        return ",".join(f"{key}={value}" for key, value in sorted(self.pod_labels.items()))


@dataclass(frozen=True)
class PoolExpectation:
    """One pool as planned: how to find its nodes and what each must advertise."""

    pool: str
    node_selector: dict[str, str]
    nodes: int
    per_node: dict[str, int]
    # The GPU Operator's MIG manager applies the layout, so the node's MIG state label must say success.
    mig_by_operator: bool
    # DRA stacks: the devices each node's ResourceSlices must list (``verify.resource_slices``), by device name.
    devices: dict[str, int] = field(default_factory=dict)
    # The layout the pool's nodes are labelled with (nvidia.com/mig.config), where the MIG manager cuts them.
    mig_layout: str | None = None

    @property
    def label_selector(self) -> str:
        return ",".join(f"{key}={value}" for key, value in sorted(self.node_selector.items()))


def expected_pools(stack: Stack) -> list[PoolExpectation]:
    """Per pool, what the device plugin advertises per node (``PoolCapacity.advertised``: node allocatable shows every
    slice, even those ``maxPods`` leaves no room for). Nodes are found by the pool label alone: a workload's selector
    may also wait for the MIG layout, and a node still applying it must be seen, not missed."""
    capacity = {item.pool: item for item in stack_capacity(stack.pools)}
    # The DRA driver advertises no extended resource on the node: its devices are checked in ResourceSlices
    # (verify.resource_slices), and any nvidia.com/* allocatable there is a device plugin that must not run.
    dra = not stack.config.gpu_software.chosen_installer.advertises_extended_resources
    return [
        PoolExpectation(
            pool=pool.name,
            node_selector={POOL_LABEL: pool.name},
            nodes=pool.nodes,
            per_node={} if dra else dict(capacity[pool.name].advertised),
            mig_by_operator=bool(pool.mig and pool.mig.applied_by == "operator"),
            mig_layout=pool.labels.get(MIG_CONFIG_LABEL),
        )
        for pool in stack.pools
    ]


def device_plugin_target(stack: Stack) -> DevicePluginTarget:
    """Where the device plugin runs for this stack's installer.

    The program installs each chart with the release name equal to the chart name, so the device plugin
    chart's fullname, and its daemonset, is ``nvidia-device-plugin``.
    """
    software = stack.config.gpu_software
    return software.chosen_installer.facet(DEVICE_PLUGIN_TARGET)(software.resolved_namespace)


def _dra_kubelet_plugin(namespace: str) -> DevicePluginTarget:
    """The DRA driver's kubelet plugin, which publishes the node's ResourceSlices."""
    (plugin,) = DRA_DRIVER_DEFAULTS.daemonsets
    return DevicePluginTarget(
        namespace,
        plugin.name,
        {
            "app.kubernetes.io/name": DRA_DRIVER.name,
            "app.kubernetes.io/instance": DRA_DRIVER.name,
        },
        "DRA kubelet plugin",
    )


def _operator_device_plugin(namespace: str) -> DevicePluginTarget:
    return DevicePluginTarget(namespace, OPERATOR_DEVICE_PLUGIN_DAEMONSET, {"app": OPERATOR_DEVICE_PLUGIN_DAEMONSET})


def _device_plugin_chart(namespace: str) -> DevicePluginTarget:
    release = DEVICE_PLUGIN.name
    return DevicePluginTarget(
        namespace,
        release,
        {
            "app.kubernetes.io/name": DEVICE_PLUGIN.name,
            "app.kubernetes.io/instance": release,
        },
    )


# What ``verify`` expects of each installer: the daemonset that must be ready on every GPU node.
DEVICE_PLUGIN_TARGET: Capability[Callable[[str], DevicePluginTarget]] = Capability("verify's device plugin target")
installers.DEVICE_PLUGIN.attach(DEVICE_PLUGIN_TARGET, _device_plugin_chart)
installers.GPU_OPERATOR.attach(DEVICE_PLUGIN_TARGET, _operator_device_plugin)
installers.DRA_DRIVER.attach(DEVICE_PLUGIN_TARGET, _dra_kubelet_plugin)
