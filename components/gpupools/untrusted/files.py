"""Bounded reads of files a user names: a stack file, a base plan, a kubeconfig and the files it names, a cache.

Anything can be named (a FIFO, ``/proc/self/mem``, a 2 GB file, UTF-16 text), so the file is checked to be a
regular file before it is opened, opened without blocking, read to at most ``limit`` bytes whatever size it
reports, and decoded as UTF-8 only. Every refusal is a ``FileRefused`` naming the file and what is wrong.
"""

from __future__ import annotations

import errno
import importlib.resources
import os
import stat
from pathlib import Path

from ..errors import GpupoolsError
from .limits import MAX_FILE_BYTES
from .text import located

_BOMS = {b"\xff\xfe\x00\x00": "UTF-32", b"\x00\x00\xfe\xff": "UTF-32", b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}


class FileRefused(GpupoolsError, ValueError):
    """A file that cannot be read as asked; ``where`` is the path, ``message`` what is wrong (no content)."""

    def __init__(self, where: str, message: str):
        self.where = where
        self.message = message
        super().__init__(located(where, message))


def read_limited(path: Path, kind: str = "stack file", limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; never blocks on a FIFO or a device. ``kind`` names
    the file in errors ("no such kubeconfig")."""
    where = str(path)
    try:
        mode = os.stat(path).st_mode  # refuse FIFOs and devices before opening them: opening can have effects
        descriptor = _open_nonblocking(path) if stat.S_ISREG(mode) else None
    except OSError as error:
        raise FileRefused(where, _os_problem(error, kind)) from None
    except ValueError:  # a NUL character in the path
        raise FileRefused(where, "is not a usable path (it contains a NUL character)") from None
    if descriptor is None:
        raise FileRefused(where, not_regular(mode, kind))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):  # replaced between stat and open
            raise FileRefused(where, not_regular(info.st_mode, kind))
        if info.st_size > limit:
            raise FileRefused(where, _too_big(info.st_size, kind, limit))
        chunks, size = [], 0
        while size <= limit:  # /proc files report size 0: read until the limit, not the reported size
            chunk = os.read(descriptor, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise FileRefused(where, _too_big(size, kind, limit, at_least=True))
        return b"".join(chunks)
    except OSError as error:
        raise FileRefused(where, _os_problem(error, kind)) from None
    finally:
        os.close(descriptor)


def read_text(path: Path, kind: str = "stack file", limit: int = MAX_FILE_BYTES) -> str:
    """``read_limited`` then ``decode_utf8``: the file's UTF-8 text."""
    return decode_utf8(path, read_limited(path, kind, limit), kind)


def read_packaged(package: str, name: str, limit: int = MAX_FILE_BYTES << 4) -> bytes:
    """The bytes of a data file shipped inside ``package`` (``offers_snapshot.json``), at most ``limit`` bytes: ours,
    but read the one way all the same, so no module opens a file on its own."""
    data = importlib.resources.files(package).joinpath(name).read_bytes()
    if len(data) > limit:
        raise FileRefused(f"{package}/{name}", _too_big(len(data), "packaged file", limit))
    return data


def _open_nonblocking(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))


def not_regular(mode: int, kind: str) -> str:
    what = (
        "a directory"
        if stat.S_ISDIR(mode)
        else "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    article = "an" if kind[:1] in "aeiou" else "a"
    return f"is {what}; {article} {kind} must be a regular file"


def _too_big(size: int, kind: str, limit: int, at_least: bool = False) -> str:
    mib = f" ({limit >> 20} MiB)" if limit >= 1 << 20 and limit % (1 << 20) == 0 else ""
    return f"is {'more than ' if at_least else ''}{size} bytes; the limit for a {kind} is {limit} bytes{mib}"


def _os_problem(error: OSError, kind: str) -> str:
    if error.errno == errno.ENOENT:
        return f"no such {kind}"
    if error.errno == errno.ENOTDIR:
        return "cannot be read: a part of the path before the file name is a file, not a directory"
    if error.errno == errno.ELOOP:
        return "cannot be read: the path is a symlink loop"
    return f"cannot be read: {error.strerror or type(error).__name__}"


def decode_utf8(path: Path, data: bytes, kind: str = "stack file") -> str:
    """UTF-8 text (a BOM dropped); UTF-16/32, NUL bytes and invalid UTF-8 are a ``FileRefused`` naming ``kind``."""
    for bom, encoding in _BOMS.items():
        if data.startswith(bom):
            raise FileRefused(str(path), f"is {encoding} text; save it as UTF-8")
    if b"\x00" in data:
        raise FileRefused(str(path), f"contains NUL bytes (a binary file, or UTF-16 text); a {kind} is UTF-8 text")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise FileRefused(
            str(path), f"is not valid UTF-8: byte 0x{data[error.start]:02x} at line {line}; a {kind} is UTF-8 text"
        ) from None
