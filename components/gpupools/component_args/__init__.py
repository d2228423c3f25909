"""The arguments each gpupools component accepts, checked before the component registers anything.

Someone composing ``AksGpuPool`` or ``GpuSmokeTest`` in their own stack gets the same rules as the stack
config (name syntax from ``config.names``, bounds and enums from ``config.models``, MIG profiles from
``pools``) as a ``TypeError``/``ValueError`` naming each bad argument, instead of a half-registered
component or a cloud error minutes later. Pulumi outputs and other deferred values (``Output``,
resources, awaitables) pass unchecked: their value is not known yet. Pure: imports no Pulumi.

One module per concern: ``fields`` (shared field types), ``azure``, ``aws``, ``kubernetes`` (the models),
``checking`` (``check_args`` and its messages). Import from this package; the names below stay here.
"""

# pyright: reportUnsupportedDunderAll=false
# (the cloud models' names in __all__ are served by __getattr__ below)

from __future__ import annotations

import importlib
from typing import Any

from .checking import check_args
from .fields import ComponentArgsError, is_deferred

# Each cloud's models load with the first name asked for (an AKS plan never builds the EKS classes: ~20 ms).
# Keyed by relative module name (the modules of this package, not cloud names).
_LAZY = {
    ".aws": ("EksClusterArgsModel", "EksGpuNodeGroupArgsModel", "EksTaintModel", "reservation_target_key"),
    ".azure": ("AksClusterArgsModel", "AksGpuPoolArgsModel"),
    ".kubernetes": (
        "SMOKE_JOB_SUFFIX",
        "ClusterAutoscalerArgsModel",
        "GpuSmokeTestArgsModel",
        "KarpenterArgsModel",
        "KarpenterPoolArgsModel",
        "NvidiaChartArgsModel",
        "NvidiaDcgmExporterArgsModel",
    ),
}


def __getattr__(name: str) -> Any:
    for module, names in _LAZY.items():
        if name in names:
            return getattr(importlib.import_module(module, __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AksClusterArgsModel",
    "AksGpuPoolArgsModel",
    "ClusterAutoscalerArgsModel",
    "ComponentArgsError",
    "EksClusterArgsModel",
    "EksGpuNodeGroupArgsModel",
    "EksTaintModel",
    "GpuSmokeTestArgsModel",
    "KarpenterArgsModel",
    "KarpenterPoolArgsModel",
    "NvidiaChartArgsModel",
    "NvidiaDcgmExporterArgsModel",
    "SMOKE_JOB_SUFFIX",
    "check_args",
    "is_deferred",
    "reservation_target_key",
]
