"""The one table of installers (``gpuSoftware.installer``): each is one ``Installer`` object.

An installer carries its facts here (its chart and chart defaults, what it advertises, what it can do), so no
module compares installer names. Behaviour that belongs to a higher layer (the chart values in ``charts``, the
stack-file rules in ``resolve``, the Pulumi component in ``platform``, what ``verify`` expects) is attached to
the object by that layer's module as a typed facet (``Capability``); asking for one an installer lacks raises
``UnsupportedByInstaller`` instead of falling through to another installer's path.

The release's default namespace is the chart's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, get_args

from ..errors import GpupoolsError
from .chart_defaults import DEVICE_PLUGIN_DEFAULTS, DRA_DRIVER_DEFAULTS, GPU_OPERATOR_DEFAULTS, ChartDefaults
from .chart_refs import ChartRef
from .facets import Capability as Capability  # re-exported: the layers import it from here
from .facets import Faceted

# The stack file's spelling (a Literal so the schema and pydantic's messages list the names).
InstallerName = Literal["device-plugin", "gpu-operator", "dra-driver"]


class UnsupportedByInstaller(GpupoolsError, LookupError):
    """A layer asked an installer for a capability it was never given."""


@dataclass(eq=False)
class Installer(Faceted):
    """One installer: its facts, and the facets the higher layers attach (``attach``/``facet``)."""

    kind: ClassVar[str] = "installer"
    unsupported: ClassVar[type[GpupoolsError]] = UnsupportedByInstaller

    defaults: ChartDefaults
    # It publishes GPUs as DRA ResourceSlices (DeviceClasses, claim templates), not as extended resources.
    uses_dra: bool
    # The GPU Operator's MIG manager can cut GPUs: installed as the installer, or beside it.
    manages_mig_layouts: bool
    # It can install the NVIDIA driver (gpuSoftware.driver: operator), itself or through the GPU Operator beside it.
    installs_driver: bool
    # Its chart runs its own DCGM exporter (on by default); otherwise gpupools installs the dcgm-exporter chart.
    has_own_dcgm_exporter: bool
    # It is the GPU Operator itself, whose operands need one OS version across an AKS cluster's nodes.
    needs_one_os_per_cluster: bool
    # Its own chart is the GPU Operator, whose MIG manager runs on the GPU nodes unless a label keeps it off.
    deploys_mig_manager: bool

    @property
    def chart(self) -> ChartRef:
        return self.defaults.chart

    @property
    def advertises_extended_resources(self) -> bool:
        """Nodes show ``nvidia.com/*`` allocatable (device plugin); the DRA driver publishes ResourceSlices."""
        return not self.uses_dra

    @property
    def follows_mig_strategy(self) -> bool:
        """``migStrategy`` decides how MIG devices are advertised; the DRA driver publishes every one."""
        return not self.uses_dra


DEVICE_PLUGIN = Installer(
    "device-plugin",
    DEVICE_PLUGIN_DEFAULTS,
    uses_dra=False,
    manages_mig_layouts=False,
    installs_driver=False,
    has_own_dcgm_exporter=False,
    needs_one_os_per_cluster=False,
    deploys_mig_manager=False,
)
GPU_OPERATOR = Installer(
    "gpu-operator",
    GPU_OPERATOR_DEFAULTS,
    uses_dra=False,
    manages_mig_layouts=True,
    installs_driver=True,
    has_own_dcgm_exporter=True,
    needs_one_os_per_cluster=True,
    deploys_mig_manager=True,
)
# NVIDIA's DRA driver (preview): GPUs as ResourceSlices instead of extended resources; the GPU Operator runs
# beside it (device plugin off) when it installs the driver or cuts MIG layouts.
DRA_DRIVER = Installer(
    "dra-driver",
    DRA_DRIVER_DEFAULTS,
    uses_dra=True,
    manages_mig_layouts=True,
    installs_driver=True,
    has_own_dcgm_exporter=False,
    needs_one_os_per_cluster=False,
    deploys_mig_manager=False,
)

INSTALLERS: dict[str, Installer] = {item.name: item for item in (DEVICE_PLUGIN, GPU_OPERATOR, DRA_DRIVER)}
assert set(get_args(InstallerName)) == set(INSTALLERS)


def register(item: Installer) -> Installer:
    """Add an installer to the table (a new one, or a stub in a test; ``unregister`` takes it out again)."""
    if item.name in INSTALLERS:
        raise ValueError(f"installer {item.name!r} is registered already")
    INSTALLERS[item.name] = item
    return item


def unregister(name: str) -> None:
    INSTALLERS.pop(name, None)


def installer_named(name: str) -> Installer:
    """The installer of a ``gpuSoftware.installer`` value."""
    try:
        return INSTALLERS[name]
    except KeyError:
        raise ValueError(f"unknown installer {name!r}; allowed: {', '.join(INSTALLERS)}") from None


def installer(name: str) -> ChartDefaults:
    """The chart and chart defaults of a ``gpuSoftware.installer`` value."""
    return installer_named(name).defaults
