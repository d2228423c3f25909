"""Reading ``Pulumi.<stack>.yaml`` the way the Pulumi CLI would hand it to the program, without the CLI.

``secure:`` values are ciphertext only the CLI can decrypt; offline they become a placeholder and are
remembered as secret keys, so nothing downstream can print them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError, Problem

SECRET_PLACEHOLDER = "[secret]"


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


def stack_file_path(stack: str, root: Path | None = None) -> Path:
    return find_project_root(root) / f"Pulumi.{stack}.yaml"


def read_stack_file(path: Path, stack: str | None = None) -> StackFile:
    """Parse a stack file; a missing file or bad YAML is a ``ConfigError`` like any other bad input."""
    name = stack or path.name.removeprefix("Pulumi.").removesuffix(".yaml").removesuffix(".yml")
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise ConfigError([Problem(str(path), "no such stack file")]) from None
    except yaml.YAMLError as error:
        raise ConfigError([Problem(str(path), f"is not valid YAML: {str(error).splitlines()[0]}")]) from None
    config = document.get("config") if isinstance(document, dict) else None
    if not isinstance(config, dict):
        raise ConfigError([Problem(str(path), "has no 'config:' mapping")])
    values, secrets = {}, set()
    for key, value in config.items():
        if isinstance(value, dict) and set(value) == {"secure"}:
            values[str(key)] = SECRET_PLACEHOLDER
            secrets.add(str(key))
        else:
            values[str(key)] = value
    return StackFile(path, name, values, frozenset(secrets))
