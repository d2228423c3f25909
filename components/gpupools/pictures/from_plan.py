"""A plan's picture from its JSON (``gpuLayouts``): the head plan's own, or an untrusted base plan's.

A base plan's entries were checked for shape by ``plan.base``; here each GPU model must be one the catalog knows
and each layout one the MIG rule accepts on it, else the pool is left out with a note (the picture is never a
guess). A base plan made before ``gpuLayouts`` existed has none: its pictures are absent, and the caller says so.
"""

from __future__ import annotations

from typing import Any

from ..catalog.gpus import GPU_MODELS
from ..domain.mig_drawing import Picture, PoolPicture, entries_from_json, entries_picture
from ..untrusted.text import terminal_safe

LAYOUTS_KEY = "gpuLayouts"


def plan_json_picture(plan: dict[str, Any]) -> Picture | None:
    """The picture of every pool the plan JSON draws, or None when it has no ``gpuLayouts`` at all."""
    entries = plan.get(LAYOUTS_KEY)
    if not isinstance(entries, list):
        return None
    pools: list[PoolPicture] = []
    notes: list[str] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name, model = str(entry.get("pool", "")), GPU_MODELS.get(str(entry.get("gpu", "")))
        layout = entry.get("layout")
        groups = [group for group in layout if isinstance(group, dict)] if isinstance(layout, list) else []
        valid = isinstance(layout, list) and len(groups) == len(layout)
        gpus = entries_from_json(model, groups) if model is not None and valid else None
        nodes = entry.get("nodes")
        if gpus is None or model is None or not isinstance(nodes, int):
            notes.append(f"pool {terminal_safe(name)}: its GPU layouts in the plan are not ones gpupools knows")
            continue
        pools.append(entries_picture(name, str(entry.get("size", "")), model, gpus, min(nodes, 1000)))
    return Picture(tuple(pools), tuple(notes))
