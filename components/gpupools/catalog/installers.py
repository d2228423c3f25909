"""The one table keyed by ``gpuSoftware.installer``: each installer's chart (where from, which version, how
versions are spelled) and what that chart does by default about placement.

The release's default namespace is the chart's name. Chart values builders (``gpupools.charts``) are code,
not facts, and keep their own table there.
"""

from __future__ import annotations

from typing import Literal, Mapping, get_args

from .chart_defaults import DEVICE_PLUGIN_DEFAULTS, DRA_DRIVER_DEFAULTS, GPU_OPERATOR_DEFAULTS, ChartDefaults

Installer = Literal["device-plugin", "gpu-operator", "dra-driver"]

INSTALLERS: Mapping[str, ChartDefaults] = {
    "device-plugin": DEVICE_PLUGIN_DEFAULTS,
    "gpu-operator": GPU_OPERATOR_DEFAULTS,
    # NVIDIA's DRA driver (preview): GPUs as ResourceSlices instead of extended resources.
    "dra-driver": DRA_DRIVER_DEFAULTS,
}
assert set(get_args(Installer)) == set(INSTALLERS)


def installer(name: str) -> ChartDefaults:
    """The chart and chart defaults of a ``gpuSoftware.installer`` value."""
    try:
        return INSTALLERS[name]
    except KeyError:
        raise ValueError(f"unknown installer {name!r}; allowed: {', '.join(INSTALLERS)}") from None
