"""Where the release tests build the library as users get it: one shared folder and one lock per run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # Windows: no lock (the builds would only risk writing the egg-info at once)
    fcntl = None


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
