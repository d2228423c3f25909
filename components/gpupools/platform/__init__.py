"""The whole gpupools platform: the ``GpuPlatform`` component and the stack program built on it (``program.main``).

Importing this package loads Pulumi and the Kubernetes SDK only; a cloud's SDK loads when a platform on
that cloud is built.
"""

# Each cloud's builder attaches to its ``Cloud`` here (``builders.PlatformBuilder``); no cloud SDK loads yet.
from . import aws_builder, azure_builder  # noqa: F401
from .args import GpuPlatformArgs, GpuPoolArgs
from .component import GpuPlatform

__all__ = ["GpuPlatform", "GpuPlatformArgs", "GpuPoolArgs"]
