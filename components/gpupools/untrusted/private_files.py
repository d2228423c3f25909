"""Files only this process may read, that live no longer than a ``with`` block: a kubeconfig's client certificate
and key, which ``ssl`` loads from files only.

They go in a fresh folder made by ``tempfile.mkdtemp`` (mode 0700, a unique name), each created exclusively with
mode 0600, and the folder is removed with them when the block ends, however it ends.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def private_files(contents: dict[str, bytes], prefix: str = "gpupools-") -> Iterator[dict[str, Path]]:
    """Each ``name: data`` of ``contents`` as a private file; yields their paths by name."""
    folder = tempfile.mkdtemp(prefix=prefix)
    try:
        paths = {}
        for name, data in contents.items():
            path = Path(folder) / name
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
            paths[name] = path
        yield paths
    finally:
        shutil.rmtree(folder, ignore_errors=True)
