"""Stack files for tests: the repository's ``Pulumi.<stack>.yaml``, and configs written as stack files, planned
offline the way ``gpupools plan`` plans them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpupools.config import read_stack_file
from gpupools.plan.offline import Plan, plan_stack

REPO = Path(__file__).resolve().parents[2]


def write_stack_file(folder: Path, config: dict[str, Any], name: str) -> Path:
    """``config`` (full keys: ``gpupools:cloud``) as the ``config:`` block of ``<folder>/Pulumi.<name>.yaml``."""
    path = folder / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return path


def plan_file(path: Path) -> Plan:
    """The offline plan of the stack file at ``path``."""
    return plan_stack(read_stack_file(path))


def plan_repo_stack(name: str) -> Plan:
    """The offline plan of the repository's ``Pulumi.<name>.yaml``."""
    return plan_file(REPO / f"Pulumi.{name}.yaml")


def plan_config(folder: Path, config: dict[str, Any], name: str) -> Plan:
    """The offline plan of ``config`` written as ``<folder>/Pulumi.<name>.yaml``."""
    return plan_file(write_stack_file(folder, config, name))
