"""The library's own files, copied apart from a checkout, for tests that build or install it as users get it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # Windows: no lock (the builds would only risk writing the egg-info at once)
    fcntl = None

# What a wheel is built from: the library's own files, without the checkout's tests and build output.
LIBRARY_FILES = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "components")


def copy_library(root: Path, destination: Path) -> Path:
    """The library's files of the checkout at ``root`` in ``destination`` (made here), without caches."""
    destination.mkdir()
    for name in LIBRARY_FILES:
        path = root / name
        if path.is_dir():
            shutil.copytree(path, destination / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(path, destination / name)
    return destination


def shared_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This run's temporary folder, shared by xdist's workers (each has its own below it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def building_from_the_checkout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Held while a build reads the checkout: building writes components/gpupools.egg-info there, and under xdist
    two workers must not write it at once."""
    with open(shared_temp(tmp_path_factory) / "checkout-build.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield
