"""Where each NVIDIA chart comes from and the version gpupools pins by default.

Versions are spelled as the Helm repositories publish them: the device plugin without a ``v``
(``0.20.0``), the GPU Operator with one (``v26.7.0``).
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

_BY_INSTALLER = {"device-plugin": DEVICE_PLUGIN, "gpu-operator": GPU_OPERATOR}


def chart_for(installer: str) -> ChartRef:
    """The chart of a ``gpuSoftware.installer`` value."""
    try:
        return _BY_INSTALLER[installer]
    except KeyError:
        raise ValueError(f"unknown installer {installer!r}; allowed: {', '.join(_BY_INSTALLER)}") from None
