"""The component provider's base class, apart so that only the provider pays for loading the provider host.

``pulumi.provider.experimental.component.ComponentProvider`` is not exported by the SDK (see this package's
docstring); importing it loads the gRPC provider host, about 60 ms that ``gpupools plan`` never needs.
"""

from pulumi.provider.experimental.component import ComponentProvider

__all__ = ["ComponentProvider"]
