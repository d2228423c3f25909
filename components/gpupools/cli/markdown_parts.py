"""Pieces of the pull request comment that keep its tables narrow and say what changed against the base plan.

GitHub shows a comment in a column about 900 pixels wide: a cell longer than ~60 characters pushes its table off
the side. So resource names lose the ``nvidia.com/`` every NVIDIA resource shares (the column header says so), a
price's source is its repository's name linked to the file, and long notes go under the table as a list.
Resources carry the marks ``pulumi preview`` uses against the base plan: ``+`` create, ``~`` update, ``-`` delete,
``+-`` replace, and two spaces for a resource that stays the same.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import urlsplit

from ..catalog.labels import POOL_LABEL
from ..plan.aliases import old_self
from ..plan.diff import CapacityDiff, pool_resource_types

NVIDIA_PREFIX = "nvidia.com/"


def short(resource: str) -> str:
    """``nvidia.com/mig-3g.20gb`` -> ``mig-3g.20gb``; other names (``gpu.nvidia.com/...``) as they are."""
    return resource.removeprefix(NVIDIA_PREFIX)


def source_link(url: str | None) -> str:
    """``[tsaol/aws-gpu](https://github.com/tsaol/aws-gpu/blob/...)``: the source's name, linked."""
    if not url:
        return "-"
    parts = urlsplit(url)
    path = [part for part in parts.path.split("/") if part]
    host = parts.hostname or url
    github = host in ("github.com", "raw.githubusercontent.com") and len(path) >= 2
    name = f"{path[0]}/{path[1]}" if github else host.removeprefix("www.")
    return f"[{name}]({url})"


Key = tuple[str, str]  # (type, logical name)


def _key(resource: Mapping[str, Any]) -> Key:
    return (str(resource.get("type")), str(resource.get("name")))


def marks(
    head: list[dict[str, Any]], base: Mapping[str, Any] | None, diff: CapacityDiff | None
) -> tuple[dict[Key, str], list[dict[str, Any]]]:
    """Each head resource's mark against the base plan (``+`` everywhere without one), and the base's resources the
    head no longer has (to list as ``-``). A pool resource of a pool the diff replaces is ``+-``."""
    if base is None:
        return {_key(r): "+" for r in head}, []
    before = {_key(r): r for r in base.get("resources", []) if isinstance(r, Mapping)}
    replaced = {pool.pool for pool in (diff.pools if diff else ()) if pool.change == "replaced"}
    found: dict[Key, str] = {}
    matched: set[Key] = set()  # base resources a head resource is, by its key or an alias (plan/aliases.py)
    for resource in head:
        old = old_self(resource, before)
        matched |= {_key(old)} if old is not None else set()
        if old is None:
            found[_key(resource)] = "+"
        elif resource.get("type") in pool_resource_types() and _pool_of(resource) in replaced:
            found[_key(resource)] = "+-"
        elif old.get("inputs") != resource.get("inputs"):
            found[_key(resource)] = "~"
        else:
            found[_key(resource)] = "  "
    gone = [dict(r) for key, r in before.items() if key not in matched]
    return found, gone


def _pool_of(resource: Mapping[str, Any]) -> str | None:
    for value in (resource.get("inputs") or {}).values():
        if isinstance(value, Mapping) and POOL_LABEL in value:
            return str(value[POOL_LABEL])
    return None


__all__ = ["NVIDIA_PREFIX", "marks", "short", "source_link"]
