"""Reading ``Pulumi.<stack>.yaml`` the way the Pulumi CLI would hand it to the program, without the CLI.

Anything can be named as a stack file (a FIFO, ``/proc/self/mem``, a 2 GB file, UTF-16 text), so it is read by
the untrusted-input kit: a regular file of at most 1 MiB of UTF-8 (``untrusted.files``), parsed by
``untrusted.safe_yaml`` within its depth and size limits. The ``config:`` block then follows Pulumi's own rules:
every key is ``<namespace>:<name>``. ``secure:`` values are ciphertext only the CLI can decrypt; offline
they become a placeholder and are remembered as secret keys, so nothing downstream can print them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
import os
from pathlib import Path
from typing import Any

from ..untrusted.files import FileRefused, read_text
from ..untrusted.safe_yaml import YamlIssue, YamlRefused, load_yaml
from .errors import SECRET_PLACEHOLDER, ConfigError, Problem
from ..untrusted.lookup import did_you_mean

__all__ = [
    "SECRET_PLACEHOLDER",
    "StackFile",
    "check_stack_name",
    "find_project_root",
    "read_stack_file",
    "read_yaml_file",
    "stack_file_path",
]

# Pulumi: "Stack names may only contain alphanumeric characters, hyphens, underscores, or periods."
STACK_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")


OUTSIDE_FLAG = "--demand-outside-project"  # check and plan: gpupools:demand may name a file outside the project


@dataclass(frozen=True)
class StackFile:
    """A stack file's ``config:`` block, with the keys whose values were ``secure:``."""

    path: Path
    stack: str
    config: dict[str, Any]
    secret_keys: frozenset[str] = field(default_factory=frozenset)
    demand_outside_project: bool = False  # --demand-outside-project: gpupools:demand may lead out of the project


def find_project_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` holding ``Pulumi.yaml`` (the cwd when none does)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if os.path.lexists(folder / "Pulumi.yaml"):  # whatever it is: read_yaml_file refuses a non-file
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


def _no_such_stack(path: Path, stack: str) -> None:
    """``--stack NAME`` without its file: one line naming the stacks that are there, the closest first."""
    try:
        there = sorted(
            found.name.removeprefix("Pulumi.").rsplit(".", 1)[0]
            for found in path.parent.glob("Pulumi.*.y*ml")
            if found.suffix in (".yaml", ".yml")
        )[:MAX_STACKS_NAMED]
    except OSError:
        there = []
    listed = f"stacks here: {', '.join(there)}" if there else "no Pulumi.<stack>.yaml here"
    raise ConfigError([Problem(str(path), f"no such stack file; {did_you_mean(stack, there)}{listed}")])


MAX_STACKS_NAMED = 50


def read_stack_file(path: Path | str, stack: str | None = None) -> StackFile:
    """Parse a stack file; an unreadable file, bad YAML or a bad key is a ``ConfigError`` like any other bad input."""
    if str(path) == "":
        raise ConfigError([Problem("--config", "is empty; give the path of a Pulumi.<stack>.yaml file")])
    path = Path(path)
    name = stack or check_stack_name(
        path.name.removeprefix("Pulumi.").removesuffix(".yaml").removesuffix(".yml"), f"{path} (its stack name)"
    )
    if stack is not None and not path.exists():
        _no_such_stack(path, stack)
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
    """A YAML file (a stack file, ``Pulumi.yaml``) as plain values, within the size, depth and alias limits;
    ``kind`` names the file in errors."""
    try:
        return load_yaml(read_text(path, kind))
    except FileRefused as refused:
        raise ConfigError([Problem(refused.where, refused.message)]) from None
    except YamlRefused as refused:
        raise ConfigError([_located(path, issue) for issue in refused.issues]) from None


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
