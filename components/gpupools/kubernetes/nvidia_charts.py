"""Helm releases of NVIDIA's device plugin and GPU Operator, each pinned and in its own namespace.

The values come from ``gpupools.charts`` (pure functions of the stack); these components only install them.
"""


from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..charts.refs import DEVICE_PLUGIN, GPU_OPERATOR
from ..component_args import NvidiaChartArgsModel, check_args


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


class _NvidiaChart(pulumi.ComponentResource):
    """A namespace and an atomic Helm release of one NVIDIA chart."""

    # Private (underscore) so the multi-language schema does not take them for outputs.
    _chart: str
    _repo: str
    _type_token: str
    _installer: str  # the chart's key in config.models.PINNED_VERSION

    release_name: pulumi.Output[str]
    """Helm release name."""
    chart_version: pulumi.Output[str]
    """Installed chart version."""
    namespace: pulumi.Output[str]
    """Namespace of the release."""

    def __init__(self, name: str, args: NvidiaChartArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        check_args(NvidiaChartArgsModel, type(self).__name__, name, args, {"installer": self._installer})
        super().__init__(self._type_token, name, None, opts)
        namespace: pulumi.Input[str] = args["namespace"]
        if args.get("create_namespace", True) is not False:
            created = k8s.core.v1.Namespace(
                f"{name}-ns", metadata=k8s.meta.v1.ObjectMetaArgs(name=args["namespace"]),
                opts=pulumi.ResourceOptions(parent=self),
            )
            namespace = created.metadata.name
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=self._chart,
            chart=self._chart,
            version=args["version"],
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=self._repo),
            namespace=namespace,
            values=args.get("values") or {},
            # A failed upgrade rolls back instead of leaving GPUs unadvertised.
            atomic=True,
            timeout=args.get("timeout_seconds") or 600,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.release_name = release.name
        self.chart_version = release.version
        self.namespace = pulumi.Output.from_input(namespace)
        self.register_outputs({"releaseName": self.release_name, "chartVersion": self.chart_version,
                               "namespace": self.namespace})


class NvidiaDevicePlugin(_NvidiaChart):
    """The NVIDIA device plugin chart (with GPU feature discovery when enabled in values)."""

    _chart = DEVICE_PLUGIN.name
    _repo = DEVICE_PLUGIN.repo
    _installer = "device-plugin"
    _type_token = "gpupools:index:NvidiaDevicePlugin"


class NvidiaGpuOperator(_NvidiaChart):
    """The NVIDIA GPU Operator chart (device plugin, GFD, MIG manager, DCGM exporter, optionally driver and toolkit)."""

    _chart = GPU_OPERATOR.name
    _repo = GPU_OPERATOR.repo
    _installer = "gpu-operator"
    _type_token = "gpupools:index:NvidiaGpuOperator"
