"""Day two's program (``domain.day_two_solver``) against an independent brute force on small stacks.

The brute force knows nothing of patterns or HiGHS: each live pool is kept, or re-cut to every multiset of per-GPU
choices (each valid layout of NVIDIA's placement table, or a whole GPU) on its node; what is left of the demand
takes the fewest new GPUs by a memoised search over what remains. Its optimum is the lexicographic minimum of (new
nodes, re-cut nodes), the solver's stated objective; the solver's change must equal it, be proven, and hold the
demand when its capacity is counted here from its node layouts.
"""

from __future__ import annotations

import functools
import itertools
import random

import pytest

from gpupools.catalog.gpus import GPU_MODELS
from gpupools.domain.day_two_solver import LivePool, solve_day_two
from gpupools.domain.mig_layouts import valid_layouts
from gpupools.domain.node_layout import NodeLayout

GPU = GPU_MODELS["A100-80GB"]
LAYOUTS = valid_layouts(GPU)
PER_NODE = 2  # Standard_NC48ads_A100_v4: two A100-80GB per node, small enough to enumerate
PROFILES: tuple[str, ...] = ("1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb", "1g.20gb")


def _choices(names: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Every GPU's options by what they give the demand: each valid layout's instances of the demanded profiles,
    and a whole GPU (last coordinate)."""
    found = {tuple(dict(layout).get(name, 0) for name in names) + (0,) for layout in LAYOUTS}
    return sorted(found | {tuple(0 for _ in names) + (1,)})


def brute_force(demand: dict[str, int], whole: int, pools: list[LivePool]) -> tuple[int, int]:
    names = tuple(sorted(demand))
    choices = _choices(names)

    @functools.lru_cache(maxsize=None)
    def fewest_gpus(left: tuple[int, ...]) -> int:
        if all(v <= 0 for v in left):
            return 0
        return 1 + min(
            fewest_gpus(tuple(max(v - c, 0) for v, c in zip(left, choice)))
            for choice in choices
            if any(c > 0 and v > 0 for v, c in zip(left, choice))
        )

    def kept(pool: LivePool) -> tuple[int, ...]:
        devices = pool.node.mig_devices
        return tuple(pool.nodes * devices.get(name, 0) for name in names) + (pool.nodes * pool.node.whole_gpus,)

    options = []
    for pool in pools:
        mine = [(kept(pool), 0)]
        for node in itertools.combinations_with_replacement(choices, PER_NODE):
            mine.append((tuple(pool.nodes * sum(c[i] for c in node) for i in range(len(names) + 1)), pool.nodes))
        options.append(mine)
    best = None
    need = tuple(demand[name] for name in names) + (whole,)
    for combo in itertools.product(*options):
        held = [sum(option[0][i] for option in combo) for i in range(len(need))]
        left = tuple(max(n - h, 0) for n, h in zip(need, held))
        nodes = -(-fewest_gpus(left) // PER_NODE)
        score = (nodes, sum(option[1] for option in combo))
        best = score if best is None or score < best else best
    assert best is not None
    return best


def _held(solution, names: list[str]) -> dict[str | None, int]:
    held: dict[str | None, int] = {}
    nodes = [(change.pool.nodes, change.after) for change in solution.pools]
    nodes += [
        (pool.nodes, NodeLayout.of((g, None if c is None else dict(c)) for c, g in pool.groups))
        for pool in solution.added
    ]
    for count, node in nodes:
        for name, devices in node.mig_devices.items():
            held[name] = held.get(name, 0) + count * devices
        held[None] = held.get(None, 0) + count * node.whole_gpus
    return held


def _random_pool(rng: random.Random, name: str) -> LivePool:
    first, second = rng.choice(LAYOUTS), rng.choice([*LAYOUTS, None])
    groups = [(1, dict(first)), (1, None if second is None else dict(second))]
    return LivePool(name, rng.randint(1, 2), NodeLayout.of(groups))


@pytest.mark.parametrize("seed", range(60))
def test_the_change_has_the_brute_forces_optimum(seed):
    rng = random.Random(seed)
    pools = [_random_pool(rng, f"p{i}") for i in range(rng.randint(1, 2))]
    names = rng.sample(PROFILES, rng.randint(1, 2))
    demand = {name: rng.randint(1, 9) for name in names}
    whole = rng.choice([0, 0, 1, 2])
    solution = solve_day_two(demand, whole, LAYOUTS, pools, PER_NODE, 10.0)
    assert solution is not None and solution.proven
    assert (solution.new_nodes, solution.recut_nodes) == brute_force(demand, whole, pools)
    held = _held(solution, names)
    assert all(held.get(name, 0) >= count for name, count in demand.items()) and held.get(None, 0) >= whole
    for change in solution.pools:  # a kept pool is exactly as it was
        assert change.recut or change.after == change.pool.node


def test_a_demand_the_stack_holds_changes_nothing():
    pool = LivePool("a", 2, NodeLayout.of([(2, {"1g.10gb": 7})]))
    solution = solve_day_two({"1g.10gb": 28}, 0, LAYOUTS, [pool], PER_NODE, 10.0)
    assert solution is not None and solution.proven
    assert (solution.new_nodes, solution.recut_nodes, solution.added) == (0, 0, ())
    assert [change.recut for change in solution.pools] == [False]


def test_one_more_slice_type_is_a_recut_when_it_saves_a_node():
    pool = LivePool("a", 1, NodeLayout.of([(2, {"1g.10gb": 7})]))
    solution = solve_day_two({"1g.10gb": 4, "3g.40gb": 1}, 0, LAYOUTS, [pool], PER_NODE, 10.0)
    assert solution is not None and (solution.new_nodes, solution.recut_nodes) == (0, 1)
    (change,) = solution.pools
    assert change.recut and change.after.mig_devices.get("3g.40gb", 0) >= 1


def test_one_more_slice_type_is_a_new_node_when_no_recut_holds_it():
    pool = LivePool("a", 1, NodeLayout.of([(2, {"1g.10gb": 7})]))
    solution = solve_day_two({"1g.10gb": 14, "3g.40gb": 1}, 0, LAYOUTS, [pool], PER_NODE, 10.0)
    assert solution is not None and (solution.new_nodes, solution.recut_nodes) == (1, 0)
    assert [change.recut for change in solution.pools] == [False]


def test_a_pool_the_mig_manager_does_not_cut_is_only_kept():
    pool = LivePool("a", 1, NodeLayout.of([(2, {"1g.10gb": 7})]), recuttable=False)
    solution = solve_day_two({"1g.10gb": 4, "3g.40gb": 1}, 0, LAYOUTS, [pool], PER_NODE, 10.0)
    assert solution is not None and (solution.new_nodes, solution.recut_nodes) == (1, 0)


def test_a_pool_without_nodes_is_only_kept():
    empty = LivePool("empty", 0, NodeLayout.of([(2, {"1g.10gb": 7})]))
    solution = solve_day_two({"3g.40gb": 2}, 0, LAYOUTS, [empty], PER_NODE, 10.0)
    assert solution is not None and (solution.new_nodes, solution.recut_nodes) == (1, 0)
    assert [change.recut for change in solution.pools] == [False]


def test_an_autoscaled_pool_weighs_as_many_nodes_as_it_may_run():
    # Either pool re-cut holds the demand; the autoscaled one may run 5 nodes, so the fixed pool of 2 is re-cut.
    autoscaled = LivePool("auto", 1, NodeLayout.of([(2, {"1g.10gb": 7})]), offline_nodes=5)
    fixed = LivePool("fixed", 2, NodeLayout.of([(2, {"1g.10gb": 7})]))
    solution = solve_day_two({"1g.10gb": 14, "3g.40gb": 2}, 0, LAYOUTS, [autoscaled, fixed], PER_NODE, 10.0)
    assert solution is not None and (solution.new_nodes, solution.recut_nodes) == (0, 2)
    assert {change.pool.name: change.recut for change in solution.pools} == {"auto": False, "fixed": True}
