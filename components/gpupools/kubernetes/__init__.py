"""Kubernetes components: the NVIDIA device plugin or GPU Operator Helm release, and a GPU smoke test Job."""

from .nvidia_charts import (
    NvidiaChartArgs, NvidiaDevicePlugin, NvidiaGpuOperator,
)
from .smoke_test import GpuSmokeTest, GpuSmokeTestArgs

__all__ = ["GpuSmokeTest", "GpuSmokeTestArgs", "NvidiaChartArgs", "NvidiaDevicePlugin", "NvidiaGpuOperator"]
