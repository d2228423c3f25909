"""gpupools: NVIDIA GPUs on AKS and EKS cut into right-sized MIG slices, time-slices and MPS shares.

Importing the package is cheap: the pure parts (catalog, config, domain, resolve) load here, while the Pulumi
components load from their cloud's subpackage (``gpupools.azure``, ``gpupools.aws``, ``gpupools.kubernetes``)
so an AKS stack never imports the AWS SDK and the other way round. ``GpuPlatform`` (the whole stack as one
component, ``gpupools.platform``) is importable from here too, loaded on first use. The layers and where a new
cloud, chart or rule goes: ``docs/architecture.md``.
"""

from typing import Any

from ._version import __version__
from .catalog.labels import GPU_TAINT
from .config.errors import ConfigError
from .config.models import StackConfig
from .domain.capacity import PoolCapacity, advertised_resources, pool_capacity, stack_capacity
from .domain.pools import MigPlan, ResolvedPool
from .domain.stack import Stack
from .resolve.stack_loader import load_stack

__all__ = [
    "GPU_TAINT",
    "ConfigError",
    "MigPlan",
    "PoolCapacity",
    "ResolvedPool",
    "Stack",
    "StackConfig",
    "__version__",
    "advertised_resources",
    "load_stack",
    "pool_capacity",
    "stack_capacity",
    "GpuPlatform",
    "GpuPlatformArgs",
]


def __getattr__(name: str) -> Any:
    """``from gpupools import GpuPlatform`` without loading Pulumi for users of the pure parts."""
    if name in ("GpuPlatform", "GpuPlatformArgs"):
        from . import platform

        return getattr(platform, name)
    raise AttributeError(f"module 'gpupools' has no attribute {name!r}")
