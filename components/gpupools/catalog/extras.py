"""Which pip extra installs each cloud's SDKs (``pyproject.toml`` ``[project.optional-dependencies]``).

A stack on a cloud whose SDK is missing is the user's install to fix, not a gpupools bug: ``require_extra`` says
which extra to install before anything imports the SDK, so ``plan``, ``GpuPlatform`` and the cloud packages all
give the same one line.
"""

from __future__ import annotations

import importlib.util

from .cloud import Extra
from .cloud_registry import cloud as cloud_named
from .cloud_registry import clouds
from ..errors import GpupoolsError

# Each built-in cloud's extra (its ``Extra`` facet), kept equal to pyproject.toml's extras by
# tests/catalog/test_extras.py.
CLOUD_EXTRAS: dict[str, Extra] = {c.name: c.facet(Extra) for c in clouds() if c.has(Extra)}


class MissingExtraError(GpupoolsError, ModuleNotFoundError):
    """A cloud SDK is not installed; the message names the extra that installs it.

    A ``ModuleNotFoundError``, so code that handled the bare one still does; the command line reports it as one
    ``error:`` line with status 2, like any other problem of the user's.
    """


def missing_extra(cloud: str, needed_by: str) -> MissingExtraError | None:
    """The error for the first of ``cloud``'s SDK modules that cannot be found, or None when all are installed."""
    extra = cloud_named(cloud).facet(Extra)
    for module in extra.modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a finder that refuses the module, or a broken half-import
            found = False
        if not found:
            return MissingExtraError(
                f"{needed_by} needs {extra.what}: pip install 'gpupools[{extra.name}]' ({module} is not installed)",
                name=module,
            )
    return None


def require_extra(cloud: str, needed_by: str) -> None:
    """Raises ``MissingExtraError`` when ``cloud``'s SDKs are not installed."""
    error = missing_extra(cloud, needed_by)
    if error is not None:
        raise error
