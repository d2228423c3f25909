"""The component provider's base class, apart so that only the provider pays for loading the provider host.

``pulumi.provider.experimental.component.ComponentProvider`` is not exported by the SDK (see this package's
docstring); importing it loads the gRPC provider host, about 60 ms that ``gpupools plan`` never needs. The error
types and ``PropertyType`` are what its ``construct`` and ``map_input_properties`` raise and read.
"""

from pulumi.errors import InputPropertyError
from pulumi.provider.experimental.analyzer import PropertyType
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError

__all__ = ["ComponentInitError", "ComponentProvider", "InputPropertyError", "PropertyType"]
