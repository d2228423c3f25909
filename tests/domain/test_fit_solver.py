"""The fit solver's bill (nodes) and GPUs equal an exhaustive search over NVIDIA's placements written here (every
set of non-overlapping (profile, start) runs on one GPU, then the fewest such GPUs covering the demand by memoized
recursion; with per-GPU layouts a node holds any 8 GPUs, so the fewest nodes hold the fewest GPUs and the whole
ones), on an A100-40GB and on an H100-80GB; and the layout counts of issue 35 (127 valid, 44 maximal, 28 maximal
without ``+me`` on 7-slice GPUs) are derived here from the placement table alone."""

from __future__ import annotations

import functools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupools.catalog.gpus import A100_40GB, H100_80GB
from gpupools.catalog.mig_placements import placements_of
from gpupools.domain.fit_solver import Profile, slice_bound, solve
from gpupools.catalog.gpus import A100_80GB
from support.mig_fillings import all_fillings
from gpupools.domain.mig_layouts import check_layout, maximal_layouts, valid_layouts

A100_MIX = ("1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb")
H100_MIX = ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")


def _profiles(gpu) -> dict[str, Profile]:
    return {p.name: Profile(p.name, p.compute_slices, p.memory_slices) for p in gpu.profiles}


@functools.cache
def _gpu_fillings(gpu_name: str, names: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    """Every way to fill one GPU with instances of ``names`` at their allowed starts (no memory slice twice, no more
    compute slices than the GPU has), as counts per name; found by extending sets of runs one run at a time,
    dropping a set as soon as it overlaps or overspends, rather than by trying every combination of runs."""
    gpu = A100_40GB if gpu_name == A100_40GB.name else H100_80GB
    table = placements_of(gpu.name)
    runs = [
        (names.index(n), set(range(start, start + gpu.profile(n).memory_slices)), gpu.profile(n).compute_slices)
        for n in names
        for start in table.starts[n]
    ]
    found = set()

    def extend(first: int, counts: tuple[int, ...], used: set[int], compute: int) -> None:
        """Each set of runs from ``first`` on that fits beside ``used``: runs are taken in order, so each set once."""
        for index in range(first, len(runs)):
            position, slices, cost = runs[index]
            if not used & slices and compute + cost <= gpu.compute_slices:
                held = counts[:position] + (counts[position] + 1,) + counts[position + 1 :]
                found.add(held)
                extend(index + 1, held, used | slices, compute + cost)

    extend(0, (0,) * len(names), set(), 0)
    # A filling inside another never helps a cover: keep the largest ones (fewer branches, same minimum).
    return tuple(f for f in found if not any(o != f and all(a >= b for a, b in zip(o, f)) for o in found))


@functools.cache
def _fewest(gpu_name: str, names: tuple[str, ...], residual: tuple[int, ...]) -> int:
    """The fewest GPUs covering ``residual`` (counts per name), memoized across examples: a demand's residuals are
    another demand's too, so each is searched once per run."""
    if not any(residual):
        return 0
    # Some GPU of any cover holds the first profile still wanted: trying each filling that does as the next GPU
    # tries every cover (the order of GPUs does not matter).
    first = next(index for index, wanted in enumerate(residual) if wanted)
    return 1 + min(
        _fewest(gpu_name, names, tuple(max(r - f, 0) for r, f in zip(residual, filling)))
        for filling in _gpu_fillings(gpu_name, names)
        if filling[first]
    )


def _brute_force_gpus(gpu, demand: dict[str, int]) -> int:
    names = tuple(sorted(demand))
    return _fewest(gpu.name, names, tuple(demand[n] for n in names))


def _solve(gpu, demand, per_node=8, limit=20.0, whole=0, **kwargs):
    return solve(
        demand,
        valid_layouts(gpu),
        _profiles(gpu),
        (gpu.compute_slices, gpu.memory_slices),
        per_node,
        limit,
        whole=whole,
        **kwargs,
    )


def _assert_covers(gpu, demand, solution, per_node=8, whole=0):
    held: dict[str | None, int] = {}
    for pool in solution.pools:
        assert sum(gpus for _, gpus in pool.groups) == per_node  # a node's entries sum to its GPUs
        for config, gpus in pool.groups:
            if config is not None:
                assert not check_layout(gpu, dict(config)).problems
            for name, count in config or ((None, 1),):
                held[name] = held.get(name, 0) + count * gpus * pool.nodes
    assert all(held.get(name, 0) >= count for name, count in demand.items())
    assert held.get(None, 0) >= whole
    assert solution.nodes == sum(pool.nodes for pool in solution.pools)


def _demands(names: tuple[str, ...], most: int):
    return st.dictionaries(st.sampled_from(names), st.integers(1, most), min_size=1, max_size=len(names))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_demands(A100_MIX, 9), st.integers(0, 9))
def test_a100_40gb_mixes_match_the_exhaustive_search(demand, whole):
    solution = _solve(A100_40GB, demand, whole=whole)
    gpus = _brute_force_gpus(A100_40GB, demand)
    assert solution is not None and solution.proven
    assert (solution.nodes, solution.gpus) == (math.ceil((gpus + whole) / 8), gpus + whole)
    _assert_covers(A100_40GB, demand, solution, whole=whole)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_demands(H100_MIX, 5))
def test_h100_80gb_mixes_match_the_exhaustive_search(demand):
    solution = _solve(H100_80GB, demand, per_node=4)
    gpus = _brute_force_gpus(H100_80GB, demand)
    assert solution is not None and solution.proven
    assert (solution.nodes, solution.gpus) == (math.ceil(gpus / 4), gpus)
    _assert_covers(H100_80GB, demand, solution, per_node=4)


@pytest.mark.parametrize(
    "demand, gpus",
    [
        ({"1g.5gb": 7}, 1),  # seven 1g leave slice 7 idle: still one GPU
        ({"1g.5gb": 8}, 2),
        ({"3g.20gb": 3, "2g.10gb": 2}, 2),  # 3g+3g, and 3g at slice 4 with 2g at 0 and 2
        ({"7g.40gb": 2, "1g.5gb": 1}, 3),
        ({"3g.20gb": 1, "2g.10gb": 2, "1g.5gb": 1}, 2),  # 7 compute, 9 memory slices: one GPU cannot
    ],
)
def test_known_a100_answers(demand, gpus):
    solution = _solve(A100_40GB, demand)
    assert solution is not None and solution.gpus == gpus == _brute_force_gpus(A100_40GB, demand)


def test_the_issues_p4d_demand_is_one_node():
    demand = {"2g.10gb": 7, "1g.5gb": 4, "4g.20gb": 2}  # the old search: 4 GPUs on 3 nodes
    solution = _solve(A100_40GB, demand)
    assert (solution.nodes, solution.gpus, solution.proven) == (1, 4, True)
    _assert_covers(A100_40GB, demand, solution)


def test_cut_and_whole_gpus_share_a_node():
    demand = {"1g.10gb": 20, "2g.20gb": 6, "1g.20gb": 4}  # examples/demand.yaml on an A100-80GB
    solution = _solve(A100_80GB, demand, whole=2)
    assert (solution.nodes, solution.gpus, solution.proven) == (1, 8, True)
    ((pool),) = solution.pools
    assert sorted(gpus for config, gpus in pool.groups if config is None) == [2]
    per_pool = _solve(A100_80GB, demand, whole=2, per_gpu=False)  # the cloud's per-pool profile: apart
    assert per_pool.nodes == 2 and all(len(pool.groups) == 1 for pool in per_pool.pools)


def test_lower_bound_is_the_slice_bound():
    demand = {"3g.20gb": 3, "1g.5gb": 2}  # compute 11 -> 2; memory 14 -> 2
    assert slice_bound(demand, _profiles(A100_40GB), 7, 8) == 2
    assert _solve(A100_40GB, demand).lower_bound == 2
    assert slice_bound({"1g.5gb": 15}, _profiles(A100_40GB), 7, 8) == math.ceil(15 / 7)


def test_a_huge_demand_is_exact_and_needs_no_recursion():
    demand = {"1g.5gb": 97_000, "2g.10gb": 61_000, "3g.20gb": 53_000, "7g.40gb": 11_000, "4g.20gb": 9_000}
    solution = _solve(A100_40GB, demand)
    assert solution is not None and solution.proven and solution.gpus >= solution.lower_bound
    _assert_covers(A100_40GB, demand, solution)


def test_a_time_limit_that_stops_the_solver_is_reported():
    demand = {"1g.5gb": 97, "2g.10gb": 61, "3g.20gb": 53, "7g.40gb": 11, "4g.20gb": 9, "1g.10gb": 40}
    solution = _solve(A100_40GB, demand, limit=0.0)
    assert solution is None or (solution.stopped_by_time and not solution.proven)


def test_a_profile_no_layout_holds_gives_none():
    assert solve({"9g.99gb": 1}, valid_layouts(A100_40GB), _profiles(A100_40GB), (7, 8), 8) is None


def _maximal(layouts) -> set:
    def inside(small, big):
        return small != big and all(dict(big).get(n, 0) >= c for n, c in small)

    return {s for s in layouts if not any(inside(s, b) for b in layouts)}


@pytest.mark.parametrize("gpu", [A100_40GB, A100_80GB, H100_80GB], ids=lambda g: g.name)
def test_the_layout_counts_of_7_slice_gpus(gpu):
    valid = all_fillings(gpu.name)
    without_me = {s for s in valid if not any(gpu.profile(n).media_extensions for n, _ in s)}
    assert (len(valid), len(_maximal(valid)), len(_maximal(without_me))) == (127, 44, 28)
    assert set(valid_layouts(gpu)) == valid and set(maximal_layouts(gpu)) == _maximal(valid)
