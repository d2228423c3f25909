"""Hosts the gpupools components as a Pulumi component provider; the schema is inferred from their typed args and
finished by ``gpupools.provider.finish_schema`` (secrets, enums, no Python-only inputs)."""

import sys

from gpupools._version import __version__
from gpupools.provider import COMPONENTS, PACKAGE_NAME, GpuPoolsProvider
from pulumi.provider import main

if __name__ == "__main__":
    main(GpuPoolsProvider(COMPONENTS, PACKAGE_NAME, __version__), sys.argv[1:])
