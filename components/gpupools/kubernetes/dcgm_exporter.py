"""NVIDIA's dcgm-exporter chart as a Helm release: GPU metrics beside the device plugin.

The device plugin chart brings no exporter (the GPU Operator does, and is configured through its own values),
so this release usually shares the device plugin's namespace instead of creating one. The values come from
``gpupools.charts.dcgm_exporter`` (a pure function of the stack); this component only installs them.
"""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi

from ..catalog.chart_refs import DCGM_EXPORTER
from ..component_args.docstrings import documented
from ..component_args.checking import check_args
from ..component_args.kubernetes import NvidiaDcgmExporterArgsModel
from .release import pinned_release, release_name_and_version


class NvidiaDcgmExporterArgs(TypedDict):
    """Inputs of ``NvidiaDcgmExporter``."""

    version: str
    """Exact dcgm-exporter chart version, e.g. 4.8.2."""
    namespace: pulumi.Input[str]
    """Namespace of the release; by default an existing one (the device plugin's)."""
    values: dict[str, Any]
    """Helm values passed to the dcgm-exporter chart as they are (its values.yaml); GpuPlatform pins the image """
    """tag, runs it on GPU nodes only (nodeSelector nvidia.com/gpu.present and the GPU taint's toleration) and """
    """sets serviceMonitor.enabled."""
    timeout_seconds: NotRequired[int]
    """How long Helm waits for the release (default 600)."""
    create_namespace: NotRequired[bool]
    """Create the namespace (default false: the release shares the device plugin's)."""


@documented
class NvidiaDcgmExporter(pulumi.ComponentResource):
    """NVIDIA's DCGM exporter DaemonSet (and its Service, optionally a ServiceMonitor) as an atomic Helm release."""

    release_name: pulumi.Output[str]
    """Helm release name."""
    chart_version: pulumi.Output[str]
    """Installed chart version."""
    namespace: pulumi.Output[str]
    """Namespace of the release."""

    def __init__(self, name: str, args: NvidiaDcgmExporterArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register the NvidiaDcgmExporter under ``name``; ``args`` is checked first (``ComponentArgsError`` names each
        bad key).

        :param name: the Pulumi resource name; children are named ``<name>-...``.
        :param args: ``NvidiaDcgmExporterArgs``: a dict whose keys help() lists under Args below (an editor
            shows each key's docstring as it completes the keys).
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(NvidiaDcgmExporterArgsModel, type(self).__name__, name, args)
        super().__init__("gpupools:index:NvidiaDcgmExporter", name, None, opts)
        release, self.namespace = pinned_release(
            self, name, DCGM_EXPORTER, args, create_namespace=args.get("create_namespace") is True
        )
        self.release_name, self.chart_version = release_name_and_version(release)
        self.register_outputs(
            {"releaseName": self.release_name, "chartVersion": self.chart_version, "namespace": self.namespace}
        )
