"""Which pip extra installs each cloud's SDKs (``pyproject.toml`` ``[project.optional-dependencies]``).

A stack on a cloud whose SDK is missing is the user's install to fix, not a gpupools bug: ``require_extra`` says
which extra to install before anything imports the SDK, so ``plan``, ``GpuPlatform`` and the cloud packages all
give the same one line.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from ..errors import GpupoolsError


@dataclass(frozen=True)
class Extra:
    name: str  # pip install 'gpupools[<name>]'
    what: str  # the SDKs, in words
    modules: tuple[str, ...]  # the top-level modules the extra installs


# Kept equal to pyproject.toml's extras by tests/catalog/test_extras.py.
CLOUD_EXTRAS = {
    "azure": Extra("azure", "the Azure SDK", ("pulumi_azure_native",)),
    "aws": Extra("aws", "the AWS SDKs", ("pulumi_aws", "pulumi_eks")),
}


class MissingExtraError(GpupoolsError, ModuleNotFoundError):
    """A cloud SDK is not installed; the message names the extra that installs it.

    A ``ModuleNotFoundError``, so code that handled the bare one still does; the command line reports it as one
    ``error:`` line with status 2, like any other problem of the user's.
    """


def missing_extra(cloud: str, needed_by: str) -> MissingExtraError | None:
    """The error for the first of ``cloud``'s SDK modules that cannot be found, or None when all are installed."""
    extra = CLOUD_EXTRAS.get(cloud)
    if extra is None:
        return None
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
