"""The one layout rule (``domain.mig_layouts``): valid layouts match a brute force over NVIDIA's placements, every
shipped named layout is valid, and stacks get the rule's refusals and notes."""

from __future__ import annotations

from collections import Counter

import pytest

from gpupools.catalog import mig_placements
from gpupools.catalog.gpus import A100_40GB, A30_24GB, GPU_MODELS, H100_80GB, H200_141GB
from gpupools.domain.mig_layouts import canonical, check_layout, maximal_layouts, valid_layouts


def _brute_force_layouts(gpu) -> set:
    """Every set of (profile, start) runs with no overlap, compute within the GPU and at most one +me instance.

    Each set is grown one run at a time in the runs' order, and a set that breaks a rule is not grown further: every
    rule holds for a set only if it holds for each of its subsets, so this visits every valid set, as trying every
    combination of runs would, without the millions of combinations that already overlap."""
    table = mig_placements.placements_of(gpu.name)
    runs = [(p, start) for p in gpu.profiles for start in table.starts[p.name]]
    found = set()

    def grow(chosen: tuple, used: frozenset, compute: int, media: int, after: int) -> None:
        if chosen:
            found.add(canonical(Counter(p.name for p, _ in chosen)))
        if len(chosen) == gpu.compute_slices:
            return
        for index in range(after, len(runs)):
            p, start = runs[index]
            slices = frozenset(range(start, start + p.memory_slices))
            if slices & used or compute + p.compute_slices > gpu.compute_slices or media + p.media_extensions > 1:
                continue
            grow(
                (*chosen, runs[index]), used | slices, compute + p.compute_slices, media + p.media_extensions, index + 1
            )

    grow((), frozenset(), 0, 0, 0)
    return found


@pytest.mark.parametrize("gpu", [A100_40GB, H100_80GB, A30_24GB], ids=lambda gpu: gpu.name)
def test_valid_layouts_are_exactly_the_placeable_ones(gpu):
    assert set(valid_layouts(gpu)) == _brute_force_layouts(gpu)


@pytest.mark.parametrize("gpu", [g for g in GPU_MODELS.values() if g.mig_capable], ids=lambda gpu: gpu.name)
def test_every_named_layout_is_valid(gpu):
    for name, layout in gpu.layouts.items():
        assert not check_layout(gpu, layout).problems, name


def test_maximal_layouts_contain_every_valid_one():
    maximal = [dict(layout) for layout in maximal_layouts(A100_40GB)]
    for layout in valid_layouts(A100_40GB):
        assert any(all(big.get(name, 0) >= count for name, count in layout) for big in maximal)
    assert {"7g.40gb": 1} in maximal and {"1g.5gb": 7} in maximal and {"1g.5gb": 6} not in maximal


def test_a_placement_the_starts_forbid_is_refused(monkeypatch):
    """With 3g.20gb allowed only at slice 0, two of them fit the slice counts but not the placements."""
    table = mig_placements.PLACEMENTS["A100-40GB"]
    narrowed = mig_placements.Placements("A100-40GB", "high", "test", {**table.starts, "3g.20gb": (0,)}, table.caveats)
    monkeypatch.setitem(mig_placements.PLACEMENTS, "A100-40GB", narrowed)
    monkeypatch.setattr("gpupools.domain.mig_layouts._CHECKED", {})
    problems = check_layout(A100_40GB, {"3g.20gb": 2}).problems
    assert len(problems) == 1 and "cannot be placed" in problems[0]


def test_four_g_with_three_g_is_valid_with_the_driver_caveat():
    check = check_layout(A100_40GB, {"4g.20gb": 1, "3g.20gb": 1})
    assert not check.problems
    assert dict(check.starts) == {"4g.20gb": 0, "3g.20gb": 4}
    assert any("R510" in note for note in check.notes)
    assert not any("R510" in note for note in check_layout(H100_80GB, {"4g.40gb": 1, "3g.40gb": 1}).notes)


def test_unsourced_and_low_confidence_models_are_named_in_the_notes():
    h200 = check_layout(H200_141GB, {"3g.71gb": 2})
    assert not h200.problems and not h200.sourced and any("unsourced" in note for note in h200.notes)
    assert check_layout(H200_141GB, {"3g.71gb": 2, "1g.18gb": 1}).problems  # memory slices still counted
    assert any("low confidence" in note for note in check_layout(A30_24GB, {"2g.12gb": 2}).notes)


def test_messages_name_the_mix_as_given():
    (problem,) = check_layout(A100_40GB, {"3g.20gb": 2, "1g.5gb": 1}).problems
    assert problem.startswith("{3g.20gb: 2, 1g.5gb: 1} needs 9 memory slices")
