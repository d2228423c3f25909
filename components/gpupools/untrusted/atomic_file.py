"""Replacing a file at a path a user (or an environment variable) names, such as the price cache, so that nothing
else is ever written and the old file survives every failure.

The data goes to a temp file made by ``tempfile.mkstemp`` in the target's folder: a unique name, created
exclusively (``O_EXCL``), so a symlink planted at a guessable temp name is never followed and a user's own file
of that name is never touched. It is flushed to disk, given the old file's permission bits (or the usual ones
for a new file), then renamed over the target in one step. A target that is a symlink is followed to the file it
names, so the link stays a link (a dangling link's target is created). A target that exists and is not a regular
file, or whose folder cannot be made, is refused before anything is written. Every refusal is one
``FileRefused`` naming the file and what is wrong; on any failure the temp file is removed.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from .files import FileRefused, not_regular

_DEFAULT_MODE = 0o666  # what open() would give a new file, before the umask


def user_cache_file(variable: str, name: str) -> Path:
    """The file ``$variable`` names, else ``$XDG_CACHE_HOME/gpupools/<name>`` (``~/.cache`` without it)."""
    explicit = os.environ.get(variable)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpupools" / name


@contextmanager
def _refused_as(where: str, kind: str) -> Iterator[None]:
    """An OS error or a NUL in the path, while finding or preparing the target, as one ``FileRefused`` line."""
    try:
        yield
    except FileRefused:
        raise
    except OSError as error:
        raise FileRefused(where, write_problem(error, kind)) from None
    except ValueError:  # a NUL character in the path
        raise FileRefused(where, "is not a usable path (it contains a NUL character)") from None


def check_writable(path: Path, kind: str = "price cache") -> None:
    """Refuse now, before any slow work, a ``path`` that ``write_atomically`` would certainly refuse: one that
    exists and is not a regular file, or whose nearest existing folder is a file."""
    where = str(path)
    with _refused_as(where, kind):
        target = _resolved(path)
        if _existing_mode(target, kind, where) is None:
            folder = next(parent for parent in target.parents if os.path.lexists(parent))
            if not folder.is_dir():
                raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))


def write_atomically(path: Path, data: bytes, kind: str = "price cache") -> Path:
    """Replace the file at ``path`` (or the file a symlink there names) with ``data``; returns the file written."""
    return write_all_or_none([(path, data, kind)])[0]


def write_all_or_none(writes: Sequence[tuple[Path, bytes, str]]) -> list[Path]:
    """Replace each ``(path, data, kind)``'s file, or none of them: every temp file is written and flushed before
    the first rename, and if a later rename fails the earlier files get their old bytes (and mode) back, or are
    removed if there were none. Returns the files written."""
    staged: list[tuple[Path, str, str, bytes | None]] = []  # (target, temporary, where, old bytes)
    try:
        for path, data, kind in writes:
            where = str(path)
            with _refused_as(where, kind):
                target = _resolved(path)
                mode = _existing_mode(target, kind, where)
                old = _read_all(target) if mode is not None and len(writes) > 1 else None  # for a put-back
                if mode is None:
                    target.parent.mkdir(parents=True, exist_ok=True)
                staged.append((target, _staged(target, data, mode), where, old))
    except BaseException:
        for _, temporary, _, _ in staged:
            _remove(temporary)
        raise
    done: list[tuple[Path, bytes | None]] = []
    for index, (target, temporary, where, old) in enumerate(staged):
        try:
            os.replace(temporary, target)
        except OSError as error:
            for _, later, _, _ in staged[index:]:
                _remove(later)
            for written, before in done:
                _put_back(written, before)
            raise FileRefused(where, write_problem(error, writes[index][2])) from None
        done.append((target, old))
    return [target for target, _ in done]


def _staged(target: Path, data: bytes, mode: int | None) -> str:
    """A temp file beside ``target`` holding ``data`` with ``target``'s mode, flushed to disk; its path."""
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".tmp", dir=target.parent)
    try:
        try:
            _write_all(descriptor, data)
            os.fchmod(descriptor, mode if mode is not None else _DEFAULT_MODE & ~_umask())
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except BaseException:
        _remove(temporary)
        raise
    return temporary


def _read_all(target: Path) -> bytes:
    with open(target, "rb") as handle:
        return handle.read()


def _put_back(target: Path, before: bytes | None) -> None:
    """Undo one replacement of ``write_all_or_none``, as well as the file system lets it."""
    try:
        if before is None:
            os.unlink(target)
        else:
            mode = stat.S_IMODE(os.stat(target).st_mode)
            os.replace(_staged(target, before, mode), target)
    except OSError:
        pass


def _resolved(path: Path) -> Path:
    """``path``, or the file its chain of symlinks ends at (relative links are relative to their own folder)."""
    seen = 0
    while path.is_symlink():
        seen += 1
        if seen > 40:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
        link = Path(os.readlink(path))
        path = link if link.is_absolute() else path.parent / link
    return path


def _existing_mode(target: Path, kind: str, where: str) -> int | None:
    """The target's permission bits; None when there is no file yet; a ``FileRefused`` when it is not a file."""
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(where, f"{not_regular(info.st_mode, kind)}; nothing was written")
    return stat.S_IMODE(info.st_mode)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def _remove(temporary: str) -> None:
    try:
        os.unlink(temporary)
    except OSError:
        pass


def write_problem(error: OSError, kind: str) -> str:
    """What an OS error on writing a ``kind`` means, in one line; the old file, if any, is left as it was."""
    reasons = {
        errno.ENOENT: "cannot be written: its folder does not exist",
        errno.ENOTDIR: "cannot be written: a part of the path before the file name is a file, not a directory",
        errno.EISDIR: "is a directory",
        errno.ENAMETOOLONG: "cannot be written: the path or a name in it is too long",
        errno.ENOSPC: "cannot be written: the disk is full",
        errno.EDQUOT: "cannot be written: the disk quota is exceeded",
        errno.EROFS: "cannot be written: the file system is read-only",
        errno.EACCES: "cannot be written: permission denied",
        errno.EPERM: "cannot be written: operation not permitted",
        errno.ELOOP: "cannot be written: the path is a symlink loop",
        errno.EBUSY: "cannot be written: the path is busy (a mount point?)",
    }
    reason = reasons.get(error.errno or 0, f"cannot be written: {error.strerror or type(error).__name__}")
    return f"{reason}; the {kind} was left as it was"
