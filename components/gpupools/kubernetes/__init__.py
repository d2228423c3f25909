"""Kubernetes components: the NVIDIA device plugin or GPU Operator Helm release, the dcgm-exporter release beside the
device plugin, and a GPU smoke test Job."""

from .dcgm_exporter import NvidiaDcgmExporter, NvidiaDcgmExporterArgs
from .nvidia_releases import (
    NvidiaChartArgs,
    NvidiaDevicePlugin,
    NvidiaGpuOperator,
)
from .smoke_test import GpuSmokeTest, GpuSmokeTestArgs

__all__ = [
    "GpuSmokeTest",
    "GpuSmokeTestArgs",
    "NvidiaChartArgs",
    "NvidiaDcgmExporter",
    "NvidiaDcgmExporterArgs",
    "NvidiaDevicePlugin",
    "NvidiaGpuOperator",
]
