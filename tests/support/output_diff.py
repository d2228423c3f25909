"""What a chart variant's CLI output changes against its base stack's output, small enough to review.

A variant (``chart_variants.MODE_VARIANTS``) replaces a repository stack's pools and GPU software, so most of its
``plan --json``, ``check --json`` and ``plan --format markdown`` is the base stack's output, already pinned whole
by ``tests/golden/``. Only the difference is snapshotted (``tests/plan/test_variant_snapshots.py``):

- JSON outputs are diffed as values: a dict by key, a list of dicts by identity (a resource by its type, or type and
  name; a capacity row by pool), anything else whole. A path names the value; ``+`` adds it, ``-`` drops it, ``=`` sets
  it, and ``order`` gives the keys' order where the plain merge would not. No line numbers, so a change to the
  base stack's own resources leaves the variants' snapshots alone.
- Markdown is diffed as lines (a unified diff without context).

Both come with ``apply``: the test rebuilds the variant's bytes from the base's output and the diff, so the
snapshot and the base's golden file together pin the variant's output byte for byte.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from typing import Any

Path = tuple[str, ...]
Op = tuple[str, Path, Any]


def _same(a: Any, b: Any) -> bool:
    """Equal as printed: ``1``, ``1.0`` and ``true`` differ, and so does the order of a dict's keys."""
    return json.dumps(a) == json.dumps(b)


def _identity(item: Any, types: dict[str, int], pools: set[Any]) -> str | None:
    """A resource by its type where the list has one of that type (a replaced pool or chart is then a change, not
    a removal and an addition), else by type and name; a row by pool (``*`` where the list has one pool) and
    daemonset."""
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("type"), str) and isinstance(item.get("name"), str):
        return item["type"] if types[item["type"]] == 1 else f"{item['type']} {item['name']}"
    if isinstance(item.get("pool"), str):
        pool = "*" if len(pools) == 1 else item["pool"]
        return pool if "daemonset" not in item else f"{pool} {item['daemonset']}"
    return None


def _keyed(value: Any) -> dict[str, Any] | None:
    """A list of dicts as a dict by identity, if every item has a distinct one."""
    if not isinstance(value, list):
        return None
    dicts = [item for item in value if isinstance(item, dict)]
    types = Counter(item.get("type") for item in dicts)
    pools = {item.get("pool") for item in dicts}
    keys = [_identity(item, types, pools) for item in value]
    if None in keys or len(set(keys)) != len(keys):
        return None
    return dict(zip(keys, value))


def _merged_order(base: list[str], keys: list[str]) -> list[str]:
    kept = [key for key in base if key in keys]
    return kept + [key for key in keys if key not in kept]


def json_diff(base: Any, head: Any, path: Path = ()) -> list[Op]:
    """The operations that turn ``base`` into ``head`` (see the module docstring)."""
    if _same(base, head):
        return []
    pair = (base, head) if isinstance(base, dict) and isinstance(head, dict) else (_keyed(base), _keyed(head))
    if pair[0] is None or pair[1] is None:
        return [("=", path, head)]
    old, new = pair
    ops: list[Op] = [("-", (*path, key), None) for key in old if key not in new]
    for key, value in new.items():
        ops += json_diff(old[key], value, (*path, key)) if key in old else [("+", (*path, key), value)]
    if _merged_order(list(old), list(new)) != list(new):
        ops.append(("order", path, list(new)))
    return ops


def _apply_at(value: Any, ops: list[Op], depth: int) -> Any:
    if not ops:
        return value
    here = [op for op in ops if len(op[1]) == depth]
    if any(kind == "=" for kind, _, _ in here):
        return next(v for kind, _, v in here if kind == "=")
    keyed = None if isinstance(value, dict) else _keyed(value)
    items = dict(value) if keyed is None else keyed
    below: dict[str, list[Op]] = {}
    for op in ops:
        if len(op[1]) > depth:
            below.setdefault(op[1][depth], []).append(op)
    for key, key_ops in below.items():
        direct = [op for op in key_ops if len(op[1]) == depth + 1 and op[0] in "+-"]
        if direct and direct[0][0] == "-":
            items.pop(key)
        elif direct:
            items[key] = direct[0][2]
        else:
            items[key] = _apply_at(items[key], key_ops, depth + 1)
    order = next((v for kind, _, v in here if kind == "order"), None)
    keys = order if order is not None else _merged_order(list(keyed or value), list(items))
    return {key: items[key] for key in keys} if keyed is None else [items[key] for key in keys]


def apply_json_diff(base: Any, ops: list[Op]) -> Any:
    """``head`` again, from ``base`` and ``json_diff(base, head)``."""
    return _apply_at(base, ops, 0)


def render_json_diff(ops: list[Op]) -> str:
    """One entry per operation; the path as a JSON list (unambiguous), a value as indented JSON in its key order."""
    lines = []
    for kind, path, value in ops:
        head = f"{kind} {json.dumps(list(path))}"
        lines.append(head if kind == "-" else f"{head} {json.dumps(value, indent=2)}")
    return "\n".join(lines)


def text_diff(base: str, head: str) -> list[str]:
    """A unified diff of lines without context or file names (the hunk headers carry the line numbers)."""
    return list(difflib.unified_diff(base.splitlines(keepends=True), head.splitlines(keepends=True), n=0))[2:]


def apply_text_diff(base: str, diff: list[str]) -> str:
    """``head`` again, from ``base`` and ``text_diff(base, head)``."""
    lines, out, at = base.splitlines(keepends=True), [], 0
    for line in diff:
        if line.startswith("@@"):
            start, count = (line.split()[1][1:].split(",") + ["1"])[:2]
            start = int(start) - (1 if int(count) else 0)  # a pure insertion names the line before it
            out += lines[at:start]
            at = start
        elif line.startswith("-"):
            at += 1
        elif line.startswith("+"):
            out.append(line[1:])
    return "".join(out + lines[at:])
