"""The first line of a change: what matters most first (capacity lost, then capacity offline), and per pool what goes
and what arrives.

A stack's totals hide a re-cut: MIG1g → MIG3g under ``migStrategy: single`` is 56 ``nvidia.com/gpu`` before and 16
after, which the totals call "REMOVES 40× nvidia.com/gpu" while each slice grew from 1g.5gb to 3g.20gb. So each pool
that changes is named with what it advertised before and after, and, where its MIG layout changes, how its slices
change (the plans' ``outputs.gpuPools.<pool>.migLayout``, present in plans since 0.2.0).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from .base import NAME_PATTERN

_ONE_PROFILE = re.compile(r"^all-((\d+)g\.\d+gb(?:\+me)?)$")
# A layout name as the MIG manager's config names them; anything else in a base plan (untrusted) is left out.
_LAYOUT_NAME = re.compile(NAME_PATTERN)  # the shape a base plan's names must have (plan/base.py)


def layouts(plan: Mapping[str, Any]) -> dict[str, str]:
    """Each pool's MIG layout as the plan's stack outputs name it (pools without MIG, or with a name no layout has,
    are absent: a base plan is untrusted, and the names reach the headline)."""
    pools = (plan.get("outputs") or {}).get("gpuPools")
    if not isinstance(pools, Mapping):
        return {}
    return {
        str(name): str(entry["migLayout"])
        for name, entry in pools.items()
        if isinstance(entry, Mapping)
        and isinstance(entry.get("migLayout"), str)
        and _LAYOUT_NAME.match(entry["migLayout"])
    }


def layout_changes(base: Mapping[str, Any], head: Mapping[str, Any]) -> dict[str, tuple[str | None, str | None]]:
    """Each pool's MIG layout in the base plan and in the head plan (None on a side without it)."""
    before, after = layouts(base), layouts(head)
    return {pool: (before.get(pool), after.get(pool)) for pool in {*before, *after}}


def slice_change(before: str | None, after: str | None) -> str:
    """``each slice grew from 1g.5gb to 3g.20gb``, ``layout all-1g.5gb → all-balanced``, or '' when unchanged."""
    if before == after or before is None or after is None:
        return ""
    old, new = _ONE_PROFILE.match(before), _ONE_PROFILE.match(after)
    if old and new:
        verb = "grew" if int(new.group(2)) > int(old.group(2)) else "shrank"
        return f"each slice {verb} from {old.group(1)} to {new.group(1)}"
    return f"layout {before} → {after}"


def resources_text(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{count}× {name}" for name, count in counts.items() if count) or "none"


def pool_phrase(pool: str, before: Mapping[str, int], after: Mapping[str, int], slices: str) -> str:
    """``mig1g: 56× nvidia.com/gpu → 16× nvidia.com/gpu, each slice grew from 1g.5gb to 3g.20gb``: a re-cut pool
    shows all it advertises on both sides; another pool the resources whose counts change."""
    if slices:
        return f"{pool}: {resources_text(before)} → {resources_text(after)}, {slices}"
    changed = [name for name in {**before, **after} if before.get(name, 0) != after.get(name, 0)]
    old = {name: before.get(name, 0) for name in changed}
    new = {name: after.get(name, 0) for name in changed}
    return f"{pool}: {resources_text(old)} → {resources_text(new)}"


def headline(
    removes: bool,
    offline: str,
    adds: bool,
    moves: list[str],
    replaced: list[str],
) -> str:
    """``removes``/``adds``: a stack total shrinks or grows; ``offline``: the pools offline and why; ``moves``: a
    ``pool_phrase`` per pool whose capacity changes; ``replaced``: pools replaced without a change in capacity."""
    moved = "; ".join(moves)
    if removes:
        return "This change REMOVES GPU capacity: " + moved + (f"; OFFLINE meanwhile: {offline}" if offline else "")
    if offline:
        return f"This change takes GPU capacity OFFLINE: {offline}" + (f"; then {moved}" if moved else "")
    if adds:
        return "This change adds GPU capacity: " + moved
    if moved:  # a layout changed, every count kept
        return "This change re-cuts GPU pools: " + moved
    if replaced:
        return f"This change replaces GPU pools without changing capacity: {', '.join(replaced)}"
    return "This change does not change GPU capacity"
