"""Helm releases of NVIDIA's device plugin, GPU Operator and DRA driver, each pinned and in its own namespace.

The values come from ``gpupools.charts`` (pure functions of the stack); these components only install them.
"""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi

from ..catalog import installers
from ..catalog.installers import Installer
from ..catalog.chart_refs import ChartRef, DEVICE_PLUGIN, DRA_DRIVER, GPU_OPERATOR
from ..component_args.docstrings import documented
from ..component_args.checking import check_args
from ..component_args.kubernetes import NvidiaChartArgsModel
from .release import pinned_release, release_name_and_version


class NvidiaChartArgs(TypedDict):
    """Inputs of the NVIDIA chart components."""

    version: str
    """Exact chart version, e.g. 0.20.0 (device plugin) or v26.7.0 (GPU Operator)."""
    namespace: str
    """Namespace of the release, created unless create_namespace is false."""
    values: dict[str, Any]
    """Helm values passed to the chart."""
    timeout_seconds: NotRequired[int]
    """How long Helm waits for the release (default 600)."""
    create_namespace: NotRequired[bool]
    """Create the namespace (default true); false for one the cluster already has, such as kube-system."""


@documented
class _NvidiaChart(pulumi.ComponentResource):
    """A namespace and an atomic Helm release of one NVIDIA chart."""

    # Private (underscore) so the multi-language schema does not take them for outputs.
    _chart_ref: ChartRef
    _type_token: str
    _installer: Installer  # its entry in catalog.installers.INSTALLERS

    release_name: pulumi.Output[str]
    """Helm release name."""
    chart_version: pulumi.Output[str]
    """Installed chart version."""
    namespace: pulumi.Output[str]
    """Namespace of the release."""

    def __init__(self, name: str, args: NvidiaChartArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register the chart under ``name``; ``args`` is checked first (``ComponentArgsError`` names each bad key).

        :param name: the Pulumi resource name; children are named ``<name>-...``.
        :param args: ``NvidiaChartArgs``: a dict whose keys help() lists under Args below (an editor
            shows each key's docstring as it completes the keys).
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(NvidiaChartArgsModel, type(self).__name__, name, args, {"installer": self._installer.name})
        super().__init__(self._type_token, name, None, opts)
        release, self.namespace = pinned_release(
            self, name, self._chart_ref, args, create_namespace=args.get("create_namespace", True) is not False
        )
        self.release_name, self.chart_version = release_name_and_version(release)
        self.register_outputs(
            {"releaseName": self.release_name, "chartVersion": self.chart_version, "namespace": self.namespace}
        )


@documented
class NvidiaDevicePlugin(_NvidiaChart):
    """The NVIDIA device plugin chart (with GPU feature discovery when enabled in values)."""

    _chart_ref = DEVICE_PLUGIN
    _installer = installers.DEVICE_PLUGIN
    _type_token = "gpupools:index:NvidiaDevicePlugin"


@documented
class NvidiaGpuOperator(_NvidiaChart):
    """The NVIDIA GPU Operator chart (device plugin, GFD, MIG manager, DCGM exporter, optionally driver and toolkit)."""

    _chart_ref = GPU_OPERATOR
    _installer = installers.GPU_OPERATOR
    _type_token = "gpupools:index:NvidiaGpuOperator"


@documented
class NvidiaDraDriver(_NvidiaChart):
    """NVIDIA's DRA driver for GPUs (preview): the kubelet plugin publishing each node's GPUs as ResourceSlices."""

    _chart_ref = DRA_DRIVER
    _installer = installers.DRA_DRIVER
    _type_token = "gpupools:index:NvidiaDraDriver"
