# What `gpupools` exports, for type checkers and IDEs. The module loads GpuPlatform lazily (a module
# __getattr__, so the pure parts never import Pulumi), which a checker cannot follow: this stub names it.
# tests/release/test_types.py keeps it equal to the module's __all__ and objects.
from ._version import __version__ as __version__
from .catalog.labels import GPU_TAINT as GPU_TAINT
from .config.errors import ConfigError as ConfigError
from .config.models import StackConfig as StackConfig
from .domain.capacity import PoolCapacity as PoolCapacity
from .domain.capacity import advertised_resources as advertised_resources
from .domain.capacity import pool_capacity as pool_capacity
from .domain.capacity import stack_capacity as stack_capacity
from .domain.pools import MigPlan as MigPlan
from .domain.pools import ResolvedPool as ResolvedPool
from .domain.stack import Stack as Stack
from .platform import GpuPlatform as GpuPlatform
from .platform import GpuPlatformArgs as GpuPlatformArgs
from .resolve.stack_loader import load_stack as load_stack

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
