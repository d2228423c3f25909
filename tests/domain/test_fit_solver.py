"""The fit solver returns the proven minimum number of GPUs: compared with an exhaustive search over NVIDIA's
placements written here (every set of non-overlapping (profile, start) runs on one GPU, then the fewest such GPUs
covering the demand by memoized recursion), on an A100-40GB (p4d.24xlarge) and on an 80 GB GPU (H100)."""

from __future__ import annotations

import functools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupools.catalog.gpus import A100_40GB, H100_80GB
from gpupools.catalog.mig_placements import placements_of
from gpupools.domain.fit_solver import Profile, slice_bound, solve
from gpupools.domain.mig_layouts import check_layout, valid_layouts

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


def _solve(gpu, demand, per_node=8, limit=20.0):
    return solve(demand, valid_layouts(gpu), _profiles(gpu), (gpu.compute_slices, gpu.memory_slices), per_node, limit)


def _assert_covers(gpu, demand, solution):
    held: dict[str, int] = {}
    for layout, gpus in solution.layouts:
        assert not check_layout(gpu, dict(layout)).problems
        for name, count in layout:
            held[name] = held.get(name, 0) + count * gpus
    assert all(held.get(name, 0) >= count for name, count in demand.items())
    assert sum(gpus for _, gpus in solution.layouts) == solution.gpus


def _demands(names: tuple[str, ...], most: int):
    return st.dictionaries(st.sampled_from(names), st.integers(1, most), min_size=1, max_size=len(names))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_demands(A100_MIX, 9))
def test_a100_40gb_mixes_match_the_exhaustive_search(demand):
    solution = _solve(A100_40GB, demand)
    assert solution is not None and solution.proven_gpus
    assert solution.gpus == _brute_force_gpus(A100_40GB, demand)
    _assert_covers(A100_40GB, demand, solution)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_demands(H100_MIX, 5))
def test_h100_80gb_mixes_match_the_exhaustive_search(demand):
    solution = _solve(H100_80GB, demand)
    assert solution is not None and solution.proven_gpus
    assert solution.gpus == _brute_force_gpus(H100_80GB, demand)
    _assert_covers(H100_80GB, demand, solution)


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


def test_lower_bound_is_the_slice_bound():
    demand = {"3g.20gb": 3, "1g.5gb": 2}  # compute 11 -> 2; memory 14 -> 2
    assert slice_bound(demand, _profiles(A100_40GB), 7, 8) == 2
    assert _solve(A100_40GB, demand).lower_bound == 2
    assert slice_bound({"1g.5gb": 15}, _profiles(A100_40GB), 7, 8) == math.ceil(15 / 7)


def test_nodes_round_each_layout_up_and_are_minimal_for_one_layout():
    solution = _solve(A100_40GB, {"1g.5gb": 70}, per_node=8)  # ten all-1g GPUs on two 8-GPU nodes
    assert (solution.gpus, solution.nodes, solution.proven_nodes) == (10, 2, True)


def test_a_time_limit_that_stops_the_search_is_reported():
    demand = {"1g.5gb": 97, "2g.10gb": 61, "3g.20gb": 53, "7g.40gb": 11, "4g.20gb": 9, "1g.10gb": 40}
    solution = _solve(A100_40GB, demand, limit=0.0)
    assert solution is not None
    _assert_covers(A100_40GB, demand, solution)
    assert solution.stopped_by_time and not (solution.proven_gpus and solution.proven_nodes)


def test_a_profile_no_layout_holds_gives_none():
    assert solve({"9g.99gb": 1}, valid_layouts(A100_40GB), _profiles(A100_40GB), (7, 8), 8) is None
