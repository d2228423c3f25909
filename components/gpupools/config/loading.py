"""Reading ``Pulumi.<stack>.yaml`` the way the Pulumi CLI would hand it to the program, without the CLI.

Anything can be named as a stack file (a FIFO, ``/proc/self/mem``, a 2 GB file, UTF-16 text), so the
file is opened without blocking, must be a regular file of at most 1 MiB of UTF-8, and is parsed by
``safe_yaml`` within its depth and size limits. The ``config:`` block then follows Pulumi's own rules:
every key is ``<namespace>:<name>``. ``secure:`` values are ciphertext only the CLI can decrypt; offline
they become a placeholder and are remembered as secret keys, so nothing downstream can print them.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import SECRET_PLACEHOLDER, ConfigError, Problem
from .safe_yaml import YamlIssue, YamlRefused, load_yaml

__all__ = [
    "SECRET_PLACEHOLDER",
    "StackFile",
    "check_stack_name",
    "find_project_root",
    "read_stack_file",
    "read_yaml_file",
    "stack_file_path",
]

MAX_FILE_BYTES = 1 << 20  # 1 MiB; the largest real stack file is a few KB
# Pulumi: "Stack names may only contain alphanumeric characters, hyphens, underscores, or periods."
STACK_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")

_BOMS = {b"\xff\xfe\x00\x00": "UTF-32", b"\x00\x00\xfe\xff": "UTF-32", b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}


@dataclass(frozen=True)
class StackFile:
    """A stack file's ``config:`` block, with the keys whose values were ``secure:``."""

    path: Path
    stack: str
    config: dict[str, Any]
    secret_keys: frozenset[str] = field(default_factory=frozenset)


def find_project_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` holding ``Pulumi.yaml`` (the cwd when none does)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "Pulumi.yaml").is_file():
            return folder
    return here


def check_stack_name(name: str, source: str = "--stack") -> str:
    """``name`` if Pulumi would accept it as a (short) stack name, else a ``ConfigError`` naming ``source``."""
    if STACK_NAME.fullmatch(name) and name not in (".", ".."):
        return name
    hint = "; give the stack's short name, the part after the last '/'" if "/" in name else ""
    raise ConfigError(
        [
            Problem(
                source,
                f"{name!r} is not a stack name; allowed: letters, digits, '-', '_' and '.', 1 to 100 characters{hint}",
            )
        ]
    )


def stack_file_path(stack: str, root: Path | None = None) -> Path:
    return find_project_root(root) / f"Pulumi.{check_stack_name(stack)}.yaml"


def read_stack_file(path: Path | str, stack: str | None = None) -> StackFile:
    """Parse a stack file; an unreadable file, bad YAML or a bad key is a ``ConfigError`` like any other bad input."""
    if str(path) == "":
        raise ConfigError([Problem("--config", "is empty; give the path of a Pulumi.<stack>.yaml file")])
    path = Path(path)
    name = stack or check_stack_name(
        path.name.removeprefix("Pulumi.").removesuffix(".yaml").removesuffix(".yml"), f"{path} (its stack name)"
    )
    document = read_yaml_file(path)
    config = document.get("config") if isinstance(document, dict) else None
    if not isinstance(config, dict):
        raise ConfigError([Problem(str(path), "has no 'config:' mapping")])
    values: dict[str, Any] = {}
    secrets: set[str] = set()
    problems: list[Problem] = []
    spelled: dict[str, str] = {}
    for key, value in config.items():
        full_key, key_problem = _config_key(key)
        if key_problem:
            problems.append(Problem(key, key_problem))
            continue
        if full_key in spelled:
            problems.append(Problem(full_key, f"is set twice, as {spelled[full_key]!r} and {key!r}; keep one"))
            continue
        spelled[full_key] = key
        hidden, secret, secure_problems = _hide_secure(value, full_key)
        problems += secure_problems
        values[full_key] = hidden
        if secret:
            secrets.add(full_key)
    if problems:
        raise ConfigError(problems)
    return StackFile(path, name, values, frozenset(secrets))


def read_yaml_file(path: Path, kind: str = "stack file") -> Any:
    """A YAML file (a stack file, ``Pulumi.yaml``, a kubeconfig) as plain values, within the size, depth and alias
    limits; ``kind`` names the file in errors."""
    try:
        return load_yaml(decode_utf8(path, read_limited(path, kind), kind))
    except YamlRefused as refused:
        raise ConfigError([_located(path, issue) for issue in refused.issues]) from None


def read_limited(path: Path, kind: str = "stack file", limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; never blocks on a FIFO or a device. ``kind`` names
    the file in errors ("no such kubeconfig")."""
    where = str(path)
    try:
        mode = os.stat(path).st_mode  # refuse FIFOs and devices before opening them: opening can have effects
        descriptor = _open_nonblocking(path) if stat.S_ISREG(mode) else None
    except OSError as error:
        raise ConfigError([Problem(where, _os_problem(error, kind))]) from None
    except ValueError:  # a NUL character in the path
        raise ConfigError([Problem(where, "is not a usable path (it contains a NUL character)")]) from None
    if descriptor is None:
        raise ConfigError([Problem(where, _not_regular(mode, kind))])
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):  # replaced between stat and open
            raise ConfigError([Problem(where, _not_regular(info.st_mode, kind))])
        if info.st_size > limit:
            raise ConfigError([Problem(where, _too_big(info.st_size, kind, limit))])
        chunks, size = [], 0
        while size <= limit:  # /proc files report size 0: read until the limit, not the reported size
            chunk = os.read(descriptor, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise ConfigError([Problem(where, _too_big(size, kind, limit, at_least=True))])
        return b"".join(chunks)
    except OSError as error:
        raise ConfigError([Problem(where, _os_problem(error, kind))]) from None
    finally:
        os.close(descriptor)


def _open_nonblocking(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))


def _not_regular(mode: int, kind: str) -> str:
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
    return f"is {what}; a {kind} must be a regular file"


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
    """UTF-8 text (a BOM dropped); UTF-16/32, NUL bytes and invalid UTF-8 are a ``ConfigError`` naming ``kind``."""
    for bom, encoding in _BOMS.items():
        if data.startswith(bom):
            return _refuse(path, f"is {encoding} text; save it as UTF-8")
    if b"\x00" in data:
        return _refuse(path, f"contains NUL bytes (a binary file, or UTF-16 text); a {kind} is UTF-8 text")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return _refuse(
            path, f"is not valid UTF-8: byte 0x{data[error.start]:02x} at line {line}; a {kind} is UTF-8 text"
        )


def _refuse(path: Path, message: str) -> str:
    raise ConfigError([Problem(str(path), message)])


def _located(path: Path, issue: YamlIssue) -> Problem:
    """A YAML problem at the config key it is under (``myapp:deep[0].x``), else at the file."""
    parts = issue.path
    if len(parts) >= 2 and parts[0] == "config":
        return Problem(str(parts[1]) + _dotted(parts[2:]), issue.message)
    if parts:
        return Problem(str(path), f"{parts[0]}{_dotted(parts[1:])}: {issue.message}")
    return Problem(str(path), issue.message)


def _dotted(parts: tuple[str | int, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


def _config_key(key: str) -> tuple[str, str | None]:
    """Pulumi's ``ParseKey``: ``<namespace>:<name>``, or the old ``<namespace>:config:<name>`` meaning the same."""
    parts = key.split(":")
    if len(parts) == 3 and parts[1] == "config":
        parts = [parts[0], parts[2]]
    if len(parts) != 2 or not all(parts):
        example = f"gpupools:{key}" if ":" not in key else "gpupools:cloud"
        return key, f"is not a config key: keys are <namespace>:<name>, e.g. {example!r}, as the Pulumi CLI requires"
    return ":".join(parts), None


def _hide_secure(value: Any, key: str) -> tuple[Any, bool, list[Problem]]:
    """``value`` with each ``{secure: ciphertext}`` (at the top or nested in an object) as the placeholder."""
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            if isinstance(value["secure"], str):
                return SECRET_PLACEHOLDER, True, []
            return SECRET_PLACEHOLDER, True, [Problem(key, "has a 'secure:' value that is not a string of ciphertext")]
        items = {name: _hide_secure(item, key) for name, item in value.items()}
        return (
            {name: hidden for name, (hidden, _, _) in items.items()},
            any(s for _, s, _ in items.values()),
            [p for _, _, problems in items.values() for p in problems],
        )
    if isinstance(value, list):
        items_list = [_hide_secure(item, key) for item in value]
        return (
            [hidden for hidden, _, _ in items_list],
            any(s for _, s, _ in items_list),
            [p for _, _, problems in items_list for p in problems],
        )
    return value, False, []
