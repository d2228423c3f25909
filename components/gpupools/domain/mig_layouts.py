"""The one rule for "can this mix of MIG profiles be created on one GPU", and every mix that can.

A layout is valid when each instance can be given one of its profile's allowed memory-slice starts
(``catalog/mig_placements.py``) with no two instances overlapping, the compute slices add up to at most the GPU's,
no profile exceeds its per-GPU maximum, and at most one instance owns the media extensions (``+me``). On a model
whose starts are unsourced the placement part falls back to the memory-slice sum, and ``LayoutCheck.sourced`` says
so. ``resolve/mig_rules`` (named layouts, ``mig.profile``, custom mixes) and the fit solver both ask here, so a
stack and a fit never disagree about a layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..catalog.gpus import GpuModel, MigProfile
from ..catalog.mig_placements import Placements, placements_of

Layout = tuple[tuple[str, int], ...]  # sorted (profile, count) pairs: hashable and canonical


@dataclass(frozen=True)
class LayoutCheck:
    """Why a layout cannot be created (``problems``), where each instance starts when it can, and the notes that go
    with it (driver caveats, unsourced placements)."""

    problems: tuple[str, ...]
    starts: tuple[tuple[str, int], ...]  # (profile, start) per instance; empty when invalid or unsourced
    notes: tuple[str, ...]
    sourced: bool


def canonical(layout: Mapping[str, int]) -> Layout:
    return tuple(sorted((name, count) for name, count in layout.items() if count > 0))


def describe(layout: Mapping[str, int]) -> str:
    return "{" + ", ".join(f"{name}: {count}" for name, count in layout.items()) + "}"


def check_layout(gpu: GpuModel, layout: Mapping[str, int]) -> LayoutCheck:
    """The rule (module docstring) for one per-GPU mix; messages name the mix in the order it was given."""
    key = canonical(layout)
    found = _check(gpu, key)
    given, sorted_form = describe(dict(layout)), describe(dict(key))
    if given == sorted_form or not found.problems:
        return found
    return LayoutCheck(tuple(p.replace(sorted_form, given) for p in found.problems), (), found.notes, found.sourced)


_CHECKED: dict[tuple[str, Layout], LayoutCheck] = {}  # models are catalog constants: their name is their identity


def _check(gpu: GpuModel, layout: Layout) -> LayoutCheck:
    key = (gpu.name, layout)
    if key not in _CHECKED:
        _CHECKED[key] = _checked(gpu, layout)
    return _CHECKED[key]


def _checked(gpu: GpuModel, layout: Layout) -> LayoutCheck:
    table = placements_of(gpu.name)
    profiles = {name: gpu.profile(name) for name, _ in layout}
    unknown = [name for name, profile in profiles.items() if profile is None]
    if unknown:
        allowed = ", ".join(p.name for p in gpu.profiles)
        return LayoutCheck((f"{', '.join(unknown)} not a MIG profile of {gpu.name}; allowed: {allowed}",), (), (), True)
    known = {name: profile for name, profile in profiles.items() if profile is not None}
    shown = describe(dict(layout))
    problems = []
    compute = sum(known[name].compute_slices * count for name, count in layout)
    if compute > gpu.compute_slices:
        problems.append(f"{shown} needs {compute} compute slices but a {gpu.name} has {gpu.compute_slices}")
    for name, count in layout:
        if count > known[name].max_instances:
            problems.append(f"{count}x {name} exceeds the {known[name].max_instances} a {gpu.name} can hold")
    media = sum(count for name, count in layout if known[name].media_extensions)
    if media > 1:
        problems.append(f"{shown} has {media} media-extension (+me) instances; at most one per GPU")
    memory = sum(known[name].memory_slices * count for name, count in layout)
    if memory > gpu.memory_slices:
        problems.append(f"{shown} needs {memory} memory slices but a {gpu.name} has {gpu.memory_slices}")
    starts: tuple[tuple[str, int], ...] = ()
    if table.sourced and not problems:
        found = _place(gpu, table, layout)
        if found is None:
            problems.append(
                f"{shown} cannot be placed on a {gpu.name}: NVIDIA's allowed start slices leave no way to put "
                "every instance on its own memory slices"
            )
        starts = found or ()
    return LayoutCheck(tuple(problems), starts, _notes(gpu, table, known, layout), table.sourced)


def _notes(gpu: GpuModel, table: Placements, known: Mapping[str, MigProfile], layout: Layout) -> tuple[str, ...]:
    sizes = {known[name].compute_slices for name, _ in layout}
    notes = [caveat.text() for caveat in table.caveats if caveat.applies(sizes)]
    if not table.sourced:
        notes.append(f"{gpu.name} placements are unsourced: checked by slice counts only")
    elif table.confidence == "low":
        notes.append(f"{gpu.name} placements have low confidence (one mock table)")
    return tuple(notes)


def _place(gpu: GpuModel, table: Placements, layout: Layout) -> tuple[tuple[str, int], ...] | None:
    """One start per instance with no overlap, largest instances first (they have the fewest starts), or None."""
    instances = sorted(
        (name for name, count in layout for _ in range(count)),
        key=lambda name: (-_size(gpu, name), name),
    )
    chosen: list[tuple[str, int]] = []

    def place(index: int, used: int) -> bool:
        if index == len(instances):
            return True
        name = instances[index]
        size = _size(gpu, name)
        after = chosen[-1][1] + 1 if chosen and chosen[-1][0] == name else 0  # same profile: ascending starts
        for start in table.starts.get(name, ()):
            mask = ((1 << size) - 1) << start
            if start < after or start + size > gpu.memory_slices or used & mask:
                continue
            chosen.append((name, start))
            if place(index + 1, used | mask):
                return True
            chosen.pop()
        return False

    return tuple(chosen) if place(0, 0) else None


def _size(gpu: GpuModel, name: str) -> int:
    profile = gpu.profile(name)
    return profile.memory_slices if profile else 0


def valid_layouts(gpu: GpuModel) -> tuple[Layout, ...]:
    """Every non-empty valid layout of the GPU, found by growing valid layouts one instance at a time (a layout is
    valid only if each of its sub-layouts is, so nothing is missed)."""
    if gpu.name not in _VALID:
        _VALID[gpu.name] = _grown(gpu)
    return _VALID[gpu.name]


_VALID: dict[str, tuple[Layout, ...]] = {}


def _grown(gpu: GpuModel) -> tuple[Layout, ...]:
    names = [profile.name for profile in gpu.profiles]
    sizes = {p.name: (p.compute_slices, p.memory_slices) for p in gpu.profiles}
    found: set[Layout] = set()
    frontier: list[dict[str, int]] = [{}]
    while frontier:
        grown: list[dict[str, int]] = []
        for layout in frontier:
            compute = sum(sizes[n][0] * c for n, c in layout.items())
            memory = sum(sizes[n][1] * c for n, c in layout.items())
            for name in names:
                if compute + sizes[name][0] > gpu.compute_slices or memory + sizes[name][1] > gpu.memory_slices:
                    continue  # what the rule refuses first, without building its messages
                bigger = {**layout, name: layout.get(name, 0) + 1}
                key = canonical(bigger)
                if key not in found and not _check(gpu, key).problems:
                    found.add(key)
                    grown.append(bigger)
        frontier = grown
    return tuple(sorted(found))


def maximal_layouts(gpu: GpuModel, layouts: tuple[Layout, ...] | None = None) -> tuple[Layout, ...]:
    """The layouts no other one contains: enough to cover any demand with the fewest GPUs."""
    candidates = valid_layouts(gpu) if layouts is None else layouts
    counted = [dict(layout) for layout in candidates]

    def inside(small: dict[str, int], big: dict[str, int]) -> bool:
        return small != big and all(big.get(name, 0) >= count for name, count in small.items())

    return tuple(layout for layout, small in zip(candidates, counted) if not any(inside(small, big) for big in counted))
