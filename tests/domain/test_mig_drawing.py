"""The drawing model: every instance of every valid layout sits at one of NVIDIA's allowed starts for its profile
(the catalog's placement table, read here directly), no two overlap, and the spare slices are exactly the rest;
whole, unused and unsourced GPUs are drawn as such; a plan's JSON layouts are taken only when the MIG rule
accepts them."""

from __future__ import annotations

from collections import Counter

import pytest

from gpupools.catalog.gpus import GPU_MODELS
from gpupools.catalog.mig_placements import PLACEMENTS
from gpupools.domain.mig_drawing import Picture, entries_from_json, entries_picture, place_gpu
from gpupools.domain.mig_layouts import valid_layouts

SOURCED = [name for name, table in PLACEMENTS.items() if table.sourced]


@pytest.mark.parametrize("model", SOURCED)
def test_every_valid_layout_is_drawn_at_allowed_starts_without_overlap(model):
    gpu = GPU_MODELS[model]
    starts = PLACEMENTS[model].starts
    for layout in valid_layouts(gpu):
        drawn = place_gpu(gpu, layout)
        assert drawn.sourced and not drawn.whole
        assert Counter(i.profile for i in drawn.instances) == Counter(dict(layout))
        covered: list[int] = []
        for instance in drawn.instances:
            profile = gpu.profile(instance.profile)
            assert profile is not None and instance.slices == profile.memory_slices
            assert instance.start in starts[instance.profile], (layout, instance)
            covered += range(instance.start, instance.start + instance.slices)
        assert len(covered) == len(set(covered)), f"{layout}: instances overlap"
        assert max(covered) < gpu.memory_slices
        assert set(drawn.spare) == set(range(gpu.memory_slices)) - set(covered)


def test_seven_small_instances_leave_the_eighth_slice_spare():
    # NVIDIA's MIG guide: a 1g.5gb may start at slices 0..6 of an A100-40GB, never at 7.
    drawn = place_gpu(GPU_MODELS["A100-40GB"], (("1g.5gb", 7),))
    assert [i.start for i in drawn.instances] == list(range(7))
    assert drawn.spare == (7,)


def test_a_whole_gpu_has_no_instances_and_no_spare_slice():
    drawn = place_gpu(GPU_MODELS["A100-80GB"], None, [(None, "train")])
    assert drawn.whole and drawn.instances == () and drawn.spare == () and drawn.workload == "train"


def test_workloads_go_to_their_profile_in_slice_order():
    gpu = GPU_MODELS["A100-80GB"]
    drawn = place_gpu(gpu, (("1g.10gb", 2), ("2g.20gb", 1)), [("1g.10gb", "a"), ("2g.20gb", "b"), ("1g.10gb", "c")])
    by_profile = {(i.profile, i.start): i.workload for i in drawn.instances}
    ones = sorted((start, w) for (p, start), w in by_profile.items() if p == "1g.10gb")
    assert [w for _, w in ones] == ["a", "c"]
    assert [w for (p, _), w in by_profile.items() if p == "2g.20gb"] == ["b"]


def test_an_unsourced_model_is_packed_by_size_and_says_so():
    gpu = GPU_MODELS["H200-141GB"]
    big, small = (
        sorted(gpu.profiles, key=lambda p: -p.memory_slices)[1],
        min(gpu.profiles, key=lambda p: p.memory_slices),
    )
    drawn = place_gpu(gpu, ((big.name, 1), (small.name, 1)))
    assert not drawn.sourced
    assert [(i.profile, i.start) for i in drawn.instances] == [(big.name, 0), (small.name, big.memory_slices)]


def test_each_distinct_layout_is_listed_once_with_its_pools_and_unused_gpus():
    gpu = GPU_MODELS["A100-80GB"]
    layout = (("3g.40gb", 2),)
    first = entries_picture("a", "s", gpu, [layout] * 8, 2)
    second = entries_picture("b", "s", gpu, [layout] * 4 + [None] * 4, 1)
    spare = place_gpu(gpu, layout, used=False)
    third = entries_picture("c", "s", gpu, [layout], 0)
    third = type(third)(third.name, third.size, third.node_gpus, (type(first.nodes[0])("c", 1, "s", (spare,)),))
    distinct = Picture((first, second, third)).distinct()
    assert [(d.gpu.layout, d.pools, d.gpus, d.unused) for d in distinct] == [
        (layout, ("a", "b", "c"), 16 + 4 + 1, 1),
        (None, ("b",), 4, 0),
    ]


def test_plan_json_layouts_are_taken_only_when_the_mig_rule_accepts_them():
    gpu = GPU_MODELS["A100-40GB"]
    seven = (("1g.5gb", 7),)
    taken = entries_from_json(gpu, [{"gpus": 1, "whole": True}, {"gpus": 2, "mix": {"1g.5gb": 7}}])
    assert taken == (None, seven, seven)
    assert entries_from_json(gpu, [{"gpus": 1, "mix": {"1g.5gb": 8}}]) is None  # slice 7 is no 1g start
    assert entries_from_json(gpu, [{"gpus": 1, "mix": {"9g.99gb": 1}}]) is None
    assert entries_from_json(gpu, [{"gpus": 1, "mix": {}}]) is None
    assert entries_from_json(gpu, [{"gpus": 1, "whole": True, "mix": {"1g.5gb": 1}}]) is None
    assert entries_from_json(gpu, [{"gpus": 0, "whole": True}]) is None
    assert entries_from_json(gpu, [{"gpus": 65, "whole": True}]) is None


def test_a_pool_json_is_its_node_in_runs_and_reads_back():
    gpu = GPU_MODELS["A100-40GB"]
    seven = (("1g.5gb", 7),)
    pool = entries_picture("p", "s", gpu, [seven] * 6 + [None] * 2, 3)
    data = pool.to_json()
    assert data == {
        "pool": "p",
        "size": "s",
        "gpu": "A100-40GB",
        "nodes": 3,
        "layout": [{"gpus": 6, "mix": {"1g.5gb": 7}}, {"gpus": 2, "whole": True}],
    }
    assert entries_from_json(gpu, data["layout"]) == (seven,) * 6 + (None,) * 2
