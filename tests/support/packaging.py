"""The library's own files, copied apart from a checkout, for tests that build or install it as users get it."""

from __future__ import annotations

import shutil
from pathlib import Path

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
