"""The deploy order of a repository's stacks: a stack goes after every stack of the repository it names under
``gpupools:stackReferences`` (a platform stack before the team stacks that read its outputs).

Each stack file is read through ``config.loading`` (the untrusted-input kit). A reference's last part is the stack
name: a stack of this repository when ``Pulumi.<name>.yaml`` is among the stacks being deployed and the reference
names no project or this one (``Pulumi.yaml``'s ``name``); any other (another project's, or one not being deployed
now) is taken as deployed already. The stacks come out in levels: each
level's stacks name only stacks of earlier levels, so a level deploys in parallel and the levels in order.
``graphlib`` (the standard library's topological sort) finds the levels, and names a cycle, which is refused.
"""

from __future__ import annotations

import graphlib
import re
from dataclasses import dataclass
from pathlib import Path

from ..catalog.names import STACK_REFERENCE_PATTERN
from ..config.errors import NAMESPACE, ConfigError, Problem
from ..config.loading import read_stack_file, read_yaml_file

KEY = f"{NAMESPACE}:stackReferences"
_REFERENCE = re.compile(STACK_REFERENCE_PATTERN)


@dataclass(frozen=True)
class StackOrder:
    """The stacks in deploy order: ``levels[0]`` first, each level's stacks in name order."""

    levels: tuple[tuple[str, ...], ...]
    reads: dict[str, tuple[str, ...]]  # stack -> the stacks being deployed that it names

    def lines(self) -> list[str]:
        """One line per level: ``1. eks, dev`` and, after each stack that reads others, what it reads."""
        out = []
        for number, level in enumerate(self.levels, 1):
            named = [f"{s} (after {', '.join(self.reads[s])})" if self.reads.get(s) else s for s in level]
            out.append(f"{number}. {', '.join(named)}")
        return out


def stack_order(root: Path, stacks: list[str]) -> StackOrder:
    """The deploy levels of ``stacks`` (names of ``Pulumi.<name>.yaml`` in ``root``); ``ConfigError`` for an
    unreadable file, a malformed ``gpupools:stackReferences`` or a cycle, one line each."""
    problems: list[Problem] = []
    reads: dict[str, tuple[str, ...]] = {}
    project = _project_name(root)
    for stack in stacks:
        path = root / f"Pulumi.{stack}.yaml"
        try:
            config = read_stack_file(path, stack).config
        except ConfigError as error:
            problems += error.problems
            continue
        named, refused = _references(config.get(KEY, []), f"{path.name}: {KEY}", project)
        problems += refused
        reads[stack] = tuple(sorted({name for name in named if name in stacks and name != stack}))
        problems += [
            Problem(f"{path.name}: {KEY}", f"names the stack itself ({stack}); allowed: other stacks")
            for name in named
            if name == stack
        ]
    if problems:
        raise ConfigError(problems)
    sorter = graphlib.TopologicalSorter({stack: reads[stack] for stack in stacks})
    try:
        sorter.prepare()
    except graphlib.CycleError as error:
        cycle = list(error.args[1])
        raise ConfigError(
            [
                Problem(
                    f"Pulumi.{cycle[0]}.yaml: {KEY}",
                    f"the stacks read each other in a cycle ({' -> '.join(cycle)}), so none can be deployed first; "
                    "allowed: references that go one way, from team stacks to the stacks they read",
                )
            ]
        ) from None
    levels = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready())
        levels.append(tuple(ready))
        sorter.done(*ready)
    return StackOrder(tuple(levels), reads)


def _project_name(root: Path) -> str | None:
    """This project's name (``Pulumi.yaml``'s ``name``), or None without a readable one."""
    path = root / "Pulumi.yaml"
    if not path.is_file():
        return None
    document = read_yaml_file(path, "project file")
    name = document.get("name") if isinstance(document, dict) else None
    return name if isinstance(name, str) else None


def _references(value: object, where: str, project: str | None) -> tuple[list[str], list[Problem]]:
    """The names of this project's stacks ``value`` names (each reference's last part, where it names no project
    or this one), and a problem per malformed entry."""
    if not isinstance(value, list):
        return [], [Problem(where, "is not a list; allowed: a list of stack references such as [eks]")]
    names, problems = [], []
    for item in value:
        if isinstance(item, str) and _REFERENCE.fullmatch(item):
            parts = item.split("/")
            if len(parts) == 1 or parts[-2] == project:
                names.append(parts[-1])
        else:
            problems.append(
                Problem(
                    where,
                    f"{str(item)[:60]!r} is not a stack reference; allowed: <stack>, <project>/<stack> or "
                    "<org>/<project>/<stack> (letters, digits, '-', '_', '.')",
                )
            )
    return names, problems
