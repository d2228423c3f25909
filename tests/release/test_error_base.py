"""One base for every error gpupools raises on purpose: a caller catches ``GpupoolsError`` to tell our refusals
from bugs. Every exception class the package defines, found by importing each module and walking the subclasses
of ``BaseException``, must derive from it (and may keep a builtin base, so old ``except ValueError`` still works).
"""

from __future__ import annotations

import importlib
import pkgutil

import gpupools
from gpupools.errors import GpupoolsError


def _subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _subclasses(sub)
    return found


def _package_exceptions() -> set[type]:
    for module in pkgutil.walk_packages(gpupools.__path__, "gpupools."):
        if module.name != "gpupools.__main__":  # runs the CLI when imported
            importlib.import_module(module.name)
    return {cls for cls in _subclasses(BaseException) if cls.__module__.split(".")[0] == "gpupools"}


def test_every_exception_class_of_the_package_derives_from_gpupools_error() -> None:
    classes = _package_exceptions()
    assert len(classes) >= 12  # the walk found the package's errors, not an empty set
    strays = sorted(f"{cls.__module__}.{cls.__qualname__}" for cls in classes if not issubclass(cls, GpupoolsError))
    assert strays == []


def test_the_errors_keep_their_builtin_bases() -> None:
    from gpupools.catalog.extras import MissingExtraError
    from gpupools.component_args.fields import ComponentArgsError
    from gpupools.config import ConfigError

    assert issubclass(ConfigError, ValueError)
    assert issubclass(ComponentArgsError, TypeError) and issubclass(ComponentArgsError, ValueError)
    assert issubclass(MissingExtraError, ModuleNotFoundError)
