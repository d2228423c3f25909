"""The Helm values of the stack's charts, so the program and the plan checks use the very same values.

``chart_values`` is the installer's chart; ``addon_chart_values`` the charts installed beside it (the
dcgm-exporter chart next to the device plugin when ``gpuSoftware.metrics.dcgmExporter`` is on), each with
its defaults table, so the placement check covers them too.
"""

from __future__ import annotations

from typing import Any, Callable

from ..catalog.chart_defaults import DCGM_EXPORTER_DEFAULTS, GPU_OPERATOR_DEFAULTS, ChartDefaults
from ..domain.stack import Stack
from .dcgm_exporter import dcgm_exporter_values
from .device_plugin import device_plugin_values
from .dra_driver import dra_driver_values, operator_beside_dra, operator_beside_dra_values
from .gpu_operator import gpu_operator_values

VALUES_BY_INSTALLER: dict[str, Callable[[Stack], dict[str, Any]]] = {
    "device-plugin": device_plugin_values,
    "gpu-operator": gpu_operator_values,
    "dra-driver": dra_driver_values,
}


def chart_values(stack: Stack) -> dict[str, Any]:
    return VALUES_BY_INSTALLER[stack.config.gpu_software.installer](stack)


def addon_chart_values(stack: Stack) -> list[tuple[ChartDefaults, dict[str, Any]]]:
    """The charts gpupools installs beside the installer's chart, each with its defaults table and values."""
    addons: list[tuple[ChartDefaults, dict[str, Any]]] = []
    if operator_beside_dra(stack):  # its MIG manager (and driver), device plugin off
        addons.append((GPU_OPERATOR_DEFAULTS, operator_beside_dra_values(stack)))
    if stack.config.gpu_software.installs_dcgm_exporter:
        addons.append((DCGM_EXPORTER_DEFAULTS, dcgm_exporter_values(stack)))
    return addons
