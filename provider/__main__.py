"""Hosts the gpupools components as a Pulumi component provider; the schema is inferred from their typed args."""

from gpupools._version import __version__
from gpupools.provider import COMPONENTS, PACKAGE_NAME
from pulumi.provider.experimental import component_provider_host

if __name__ == "__main__":
    component_provider_host(components=COMPONENTS, name=PACKAGE_NAME, version=__version__)
