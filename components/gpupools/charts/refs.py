"""Where each NVIDIA chart comes from and the version gpupools pins by default.

Versions are spelled as the Helm repositories publish them: the device plugin and dcgm-exporter without a
``v`` (``0.20.0``, ``4.8.2``), the GPU Operator with one (``v26.7.0``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChartRef:
    """A Helm chart: its name in the repository, the repository URL and the default pinned version."""

    name: str
    repo: str
    default_version: str


DEVICE_PLUGIN = ChartRef("nvidia-device-plugin", "https://nvidia.github.io/k8s-device-plugin", "0.20.0")
GPU_OPERATOR = ChartRef("gpu-operator", "https://helm.ngc.nvidia.com/nvidia", "v26.7.0")
# GPU metrics beside the device plugin (the GPU Operator brings its own exporter). The repository is the one
# NVIDIA/dcgm-exporter's README installs from; chart 4.8.2 is git tag 4.5.3-4.8.2 and runs this image tag
# (deployment/values.yaml ``image.tag``), which our values pin explicitly.
DCGM_EXPORTER = ChartRef("dcgm-exporter", "https://nvidia.github.io/dcgm-exporter/helm-charts", "4.8.2")
DCGM_EXPORTER_IMAGE = "nvcr.io/nvidia/k8s/dcgm-exporter"
DCGM_EXPORTER_IMAGE_TAG = "4.5.3-4.8.2-distroless"

_BY_INSTALLER = {"device-plugin": DEVICE_PLUGIN, "gpu-operator": GPU_OPERATOR}


def chart_for(installer: str) -> ChartRef:
    """The chart of a ``gpuSoftware.installer`` value."""
    try:
        return _BY_INSTALLER[installer]
    except KeyError:
        raise ValueError(f"unknown installer {installer!r}; allowed: {', '.join(_BY_INSTALLER)}") from None
