"""The arguments each gpupools component accepts, checked before the component registers anything.

Someone composing ``AksGpuPool`` or ``GpuSmokeTest`` in their own stack gets the same rules as the stack
config (name syntax from ``config.names``, bounds and enums from ``config.models``, MIG profiles from
``pools``) as a ``TypeError``/``ValueError`` naming each bad argument, instead of a half-registered
component or a cloud error minutes later. Pulumi outputs and other deferred values (``Output``,
resources, awaitables) pass unchecked: their value is not known yet. Pure: imports no Pulumi.

One module per concern: ``fields`` (shared field types), ``azure``, ``aws``, ``kubernetes`` (the models),
``checking`` (``check_args`` and its messages). Import from this package; the names below stay here.
"""

from __future__ import annotations

from .aws import EksClusterArgsModel, EksGpuNodeGroupArgsModel, EksTaintModel, reservation_target_key
from .azure import AksClusterArgsModel, AksGpuPoolArgsModel
from .checking import check_args
from .fields import ComponentArgsError, is_deferred
from .kubernetes import (
    SMOKE_JOB_SUFFIX,
    ClusterAutoscalerArgsModel,
    GpuSmokeTestArgsModel,
    NvidiaChartArgsModel,
    NvidiaDcgmExporterArgsModel,
)

__all__ = [
    "AksClusterArgsModel",
    "AksGpuPoolArgsModel",
    "ClusterAutoscalerArgsModel",
    "ComponentArgsError",
    "EksClusterArgsModel",
    "EksGpuNodeGroupArgsModel",
    "EksTaintModel",
    "GpuSmokeTestArgsModel",
    "NvidiaChartArgsModel",
    "NvidiaDcgmExporterArgsModel",
    "SMOKE_JOB_SUFFIX",
    "check_args",
    "is_deferred",
    "reservation_target_key",
]
