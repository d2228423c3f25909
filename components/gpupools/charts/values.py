"""The Helm values of the stack's chosen chart, so the program and the plan checks use the very same values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .device_plugin import device_plugin_values
from .gpu_operator import gpu_operator_values

if TYPE_CHECKING:
    from ..config import Stack

VALUES_BY_INSTALLER: dict[str, Callable[["Stack"], dict[str, Any]]] = {
    "device-plugin": device_plugin_values,
    "gpu-operator": gpu_operator_values,
}


def chart_values(stack: Stack) -> dict[str, Any]:
    return VALUES_BY_INSTALLER[stack.config.gpu_software.installer](stack)
