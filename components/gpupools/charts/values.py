"""The Helm values of the stack's charts, so the program and the plan checks use the very same values.

``chart_values`` is the installer's chart; ``addon_chart_values`` the charts installed beside it (the
dcgm-exporter chart next to the device plugin when ``gpuSoftware.metrics.dcgmExporter`` is on), each with
its defaults table, so the placement check covers them too.
"""

from __future__ import annotations

from typing import Any, Callable

from ..catalog import installers
from ..catalog.installers import Capability
from ..catalog.chart_defaults import DCGM_EXPORTER_DEFAULTS, GPU_OPERATOR_DEFAULTS, ChartDefaults
from ..domain.stack import Stack
from .dcgm_exporter import dcgm_exporter_values
from .device_plugin import device_plugin_values
from .dra_driver import dra_driver_values, operator_beside_dra, operator_beside_dra_values
from .gpu_operator import gpu_operator_values

ValuesBuilder = Callable[[Stack], dict[str, Any]]
CHART_VALUES: Capability[ValuesBuilder] = Capability("chart values")

installers.DEVICE_PLUGIN.attach(CHART_VALUES, device_plugin_values)
installers.GPU_OPERATOR.attach(CHART_VALUES, gpu_operator_values)
installers.DRA_DRIVER.attach(CHART_VALUES, dra_driver_values)


def chart_values(stack: Stack) -> dict[str, Any]:
    """The values of the installer's own chart, from the values builder attached to it."""
    return stack.config.gpu_software.chosen_installer.facet(CHART_VALUES)(stack)


def addon_chart_values(stack: Stack) -> list[tuple[ChartDefaults, dict[str, Any]]]:
    """The charts gpupools installs beside the installer's chart, each with its defaults table and values."""
    addons: list[tuple[ChartDefaults, dict[str, Any]]] = []
    if operator_beside_dra(stack):  # its MIG manager (and driver), device plugin off
        addons.append((GPU_OPERATOR_DEFAULTS, operator_beside_dra_values(stack)))
    if stack.config.gpu_software.installs_dcgm_exporter:
        addons.append((DCGM_EXPORTER_DEFAULTS, dcgm_exporter_values(stack)))
    return addons
