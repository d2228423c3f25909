"""The cheapest nodes whose GPUs' MIG layouts hold a demand: a pattern integer program solved exactly by HiGHS.

Patterns: each GPU takes one configuration, a maximal valid layout restricted to the demanded profiles
(``domain.mig_layouts``; 44 maximal layouts on a 7-slice GPU, far fewer once projected), or stays whole. The
program has one integer column per configuration (its GPUs), so its size depends on the GPU model, never on the
number of replicas or GPUs. Two ways a node may be cut:

- ``per_gpu`` (the GPU Operator's MIG manager): each GPU of a node has its own configuration, so a node holds any
  ``gpus_per_node`` GPUs: nodes ``>= ceil(GPUs / gpus_per_node)``.
- per pool (the cloud's ``gpuInstanceProfile``): every GPU of a pool's nodes is cut alike, so each configuration
  has its own nodes, and whole GPUs theirs.

Objectives in order (``domain.lexicographic_mip``): the bill (nodes, since one size has one node price), then GPUs,
then the number of distinct configurations (fewer pools and mig-parted entries); ``objective="gpus"`` puts GPUs
first. Per GPU the nodes are ``ceil((GPUs + whole) / gpus_per_node)``, which rises with the GPUs, so one solve for
the fewest GPUs proves both (its bound gives the nodes' bound). Ties: HiGHS is run single-threaded with a fixed
seed, so the same demand gives the same answer. Per GPU,
the GPUs become nodes deterministically: each configuration fills whole nodes of its own, and the rest share nodes
in the configurations' order (``pack``); a node's unused GPUs take the layout of its last GPU, adding no entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping, Sequence

from . import lexicographic_mip as mip
from .mig_layouts import Layout, canonical

DEFAULT_TIME_LIMIT = 8.0  # seconds for all sizes together; the solves take milliseconds (benchmarks/fit.py)
LAYOUTS_TIME_LIMIT = 0.2  # seconds at most for the third tier: fewer configurations matter less than the bill
Objective = Literal["bill", "gpus"]
Config = Layout | None  # None: a whole GPU, MIG disabled
Group = tuple[Config, int]  # a configuration and the GPUs of one node that take it


@dataclass(frozen=True)
class Profile:
    """What the solver needs of a profile: its name and its compute and memory slices."""

    name: str
    compute: int
    memory: int


@dataclass(frozen=True)
class NodePool:
    """Identical nodes: the GPUs of one node by configuration (summing to the node's GPUs), how many such nodes,
    and how many of their GPUs the demand uses (the rest are spare)."""

    groups: tuple[Group, ...]
    nodes: int
    used: int


@dataclass(frozen=True)
class Solution:
    """The pools, the GPUs per configuration, and what is proven: the bill (nodes) and GPUs with the solver's
    certificate, with the lower bounds it proved; the number of configurations likewise."""

    pools: tuple[NodePool, ...]
    configs: tuple[tuple[Config, int], ...]
    gpus: int
    nodes: int
    lower_bound: int  # the compute/memory bound alone (lowerBound.gpus)
    bound_gpus: int
    bound_nodes: int
    proven: bool  # nodes and GPUs both certified optimal
    proven_layouts: bool
    stopped_by_time: bool
    certificate: str = "HiGHS optimal"  # what proves it, when proven


def slice_bound(demand: Mapping[str, int], profiles: Mapping[str, Profile], compute: int, memory: int) -> int:
    """``max(ceil(sum compute slices / compute), ceil(sum memory slices / memory))``: what slices alone prove."""
    total_compute = sum(profiles[name].compute * count for name, count in demand.items())
    total_memory = sum(profiles[name].memory * count for name, count in demand.items())
    return max(-(-total_compute // compute), -(-total_memory // memory), 0)


def solve(
    demand: Mapping[str, int],
    layouts: Sequence[Layout],
    profiles: Mapping[str, Profile],
    gpu_slices: tuple[int, int],
    gpus_per_node: int,
    time_limit: float = DEFAULT_TIME_LIMIT,
    *,
    whole: int = 0,
    per_gpu: bool = True,
    objective: Objective = "bill",
    layouts_time: float = LAYOUTS_TIME_LIMIT,
) -> Solution | None:
    """The optimum (module docstring), or None when some demanded profile is in no layout."""
    wanted = {name: count for name, count in demand.items() if count > 0}
    names = sorted(wanted)
    vectors = covering(layouts, names)
    if vectors is None:
        return None
    if not names:  # whole GPUs only (also on GPUs without MIG, which have no slices to divide by)
        nodes = -(-whole // gpus_per_node)
        pools = (NodePool(((None, gpus_per_node),), nodes, whole),) if whole else ()
        only: tuple[tuple[Config, int], ...] = ((None, whole),) if whole else ()
        return Solution(pools, only, whole, nodes, whole, whole, nodes, True, True, False, "bound = answer")
    slices = slice_bound(wanted, profiles, *gpu_slices)
    build = _per_gpu_program if per_gpu else _per_pool_program
    program, x, nodes_row, used = build([wanted[n] for n in names], vectors, gpus_per_node)
    rows = {"nodes": nodes_row, "gpus": {column: 1.0 for column in x}, "configs": {flag: 1.0 for flag in used}}
    if per_gpu:  # nodes = ceil((GPUs + whole) / per node) rise with GPUs: the fewest GPUs are the fewest nodes
        order: tuple[str, ...] = ("gpus", "configs")
    else:
        order = ("nodes", "gpus", "configs") if objective == "bill" else ("gpus", "nodes", "configs")
    if layouts_time <= 0:  # a size only ranked, not shown in full: the third tier can wait
        order = order[:-1]
    start = _start([wanted[n] for n in names], vectors, gpus_per_node, per_gpu)
    caps = [layouts_time if name == "configs" else None for name in order]
    outcome = mip.solve(program, [rows[name] for name in order], time_limit, caps, start)
    assert outcome is not None, "the pattern program always has a solution (one GPU per replica)"
    tier: dict[str, mip.Tier | None] = {"nodes": None, "gpus": None, "configs": None}
    tier.update((name, outcome.tiers[i]) for i, name in enumerate(order) if i < len(outcome.tiers))
    if per_gpu and tier["gpus"] is not None:
        gpus_tier = tier["gpus"]
        tier["nodes"] = mip.Tier(
            -(-(gpus_tier.value + whole) // gpus_per_node),
            -(-(gpus_tier.bound + whole) // gpus_per_node),
            gpus_tier.proven,
        )
    mig = sorted(
        ((canonical(dict(zip(names, vector))), outcome.values[column]) for vector, column in zip(vectors, x)),
        key=lambda item: (-item[1], item[0]),
    )
    configs: list[tuple[Config, int]] = [(c, n) for c, n in mig if n]
    if whole:
        configs.append((None, whole))
    pools = pack(configs, gpus_per_node) if per_gpu else _separate(configs, gpus_per_node)
    whole_nodes = 0 if per_gpu else -(-whole // gpus_per_node)  # per pool, a constant outside the program
    nodes_tier, gpus_tier, configs_tier = tier["nodes"], tier["gpus"], tier["configs"]
    proven = nodes_tier is not None and nodes_tier.proven and gpus_tier is not None and gpus_tier.proven
    return Solution(
        pools,
        tuple(configs),
        sum(n for _, n in configs),
        sum(pool.nodes for pool in pools),
        slices + whole,
        whole + (slices if gpus_tier is None else gpus_tier.bound),
        whole_nodes + (0 if nodes_tier is None else nodes_tier.bound),
        proven,
        proven and configs_tier is not None and configs_tier.proven,
        outcome.stopped_by_time,
    )


def _per_gpu_program(demand: list[int], vectors: list[tuple[int, ...]], per_node: int):
    """Columns: GPUs per configuration and one flag per configuration (used at all). Rows: every profile covered,
    a configuration's GPUs only if it is flagged. Nodes follow from the GPUs (``solve``); ``per_node`` is unused
    here, taken as ``_per_pool_program`` takes it."""
    program = mip.Program()
    x = [program.column() for _ in vectors]
    used = [program.column(1) for _ in vectors]
    for p, wanted in enumerate(demand):
        program.row({x[c]: v[p] for c, v in enumerate(vectors)}, lower=wanted)
    for column, flag, vector in zip(x, used, vectors):
        program.row({column: 1.0, flag: -_most(vector, demand)}, upper=0)
    return program, x, {}, used


def _per_pool_program(demand: list[int], vectors: list[tuple[int, ...]], per_node: int):
    """Columns: GPUs and nodes per configuration, and its flag; whole GPUs' nodes are a constant here (their own
    pool), added back by ``_separate``. Rows: every profile covered, a configuration's GPUs on its own nodes."""
    program = mip.Program()
    x = [program.column() for _ in vectors]
    nodes = [program.column() for _ in vectors]
    used = [program.column(1) for _ in vectors]
    for p, wanted in enumerate(demand):
        program.row({x[c]: v[p] for c, v in enumerate(vectors)}, lower=wanted)
    for column, node, flag, vector in zip(x, nodes, used, vectors):
        program.row({node: per_node, column: -1.0}, lower=0)
        program.row({node: 1.0, flag: float(_most(vector, demand) // -per_node)}, upper=0)  # -ceil(most / per_node)
    return program, x, {node: 1.0 for node in nodes}, used


def _start(demand: list[int], vectors: list[tuple[int, ...]], per_node: int, per_gpu: bool) -> list[int]:
    """A solution in the programs' column order, kept if the time limit stops the solver before a better one: each
    profile on the configuration holding most of it."""
    x = [0] * len(vectors)
    for p, wanted in enumerate(demand):
        best = max(range(len(vectors)), key=lambda c: (vectors[c][p], -c))
        x[best] = max(x[best], -(-wanted // vectors[best][p]))  # its GPUs hold all profiles sent to it
    flags = [int(n > 0) for n in x]
    if per_gpu:
        return [*x, *flags]
    return [*x, *(-(-n // per_node) for n in x), *flags]


def _most(vector: tuple[int, ...], demand: list[int]) -> int:
    """The most GPUs a configuration has in an answer with the fewest GPUs: with more, each profile it holds would
    be covered by it alone with one GPU less, so that GPU could go. (A tight big-M for its flag's row.)"""
    return max(-(-wanted // count) for wanted, count in zip(demand, vector) if count)


def _separate(configs: list[tuple[Config, int]], per_node: int) -> tuple[NodePool, ...]:
    """Per pool: each configuration, and the whole GPUs, on nodes of their own."""
    return tuple(NodePool(((config, per_node),), -(-count // per_node), count) for config, count in configs)


def project(layouts: Sequence[Layout], names: list[str]) -> list[tuple[int, ...]]:
    """Each layout restricted to the demanded profiles; only the ones no other contains (extra instances of other
    profiles never help), in a fixed order."""
    vectors = {tuple(dict(layout).get(name, 0) for name in names) for layout in layouts}
    vectors.discard(tuple(0 for _ in names))
    kept = [v for v in vectors if not any(o != v and all(a >= b for a, b in zip(o, v)) for o in vectors)]
    return sorted(kept, key=lambda v: (-sum(v), v))


def covering(layouts: Sequence[Layout], names: list[str]) -> list[tuple[int, ...]] | None:
    """``project``, or None when some demanded profile is in no layout (no answer can hold it)."""
    vectors = project(layouts, names)
    return None if any(all(vector[i] == 0 for vector in vectors) for i in range(len(names))) else vectors


def pack(config_counts: list[tuple[Config, int]], per_node: int) -> tuple[NodePool, ...]:
    """Per GPU: each configuration's whole nodes first, then the remaining GPUs in order, ``per_node`` at a time;
    a last node's unused GPUs take its last configuration. Identical nodes are one pool. Linear in configurations,
    not in GPUs."""
    pools: dict[tuple[Group, ...], tuple[int, int]] = {}  # groups -> (nodes, used GPUs)

    def add(groups: tuple[Group, ...], nodes: int, used: int) -> None:
        count, total = pools.get(groups, (0, 0))
        pools[groups] = (count + nodes, total + used)

    rest: list[Config] = []
    for config, count in config_counts:
        if count // per_node:
            add(((config, per_node),), count // per_node, count // per_node * per_node)
        rest += [config] * (count % per_node)
    for start in range(0, len(rest), per_node):
        chunk = rest[start : start + per_node]
        used = len(chunk)
        chunk += [chunk[-1]] * (per_node - used)
        groups: list[Group] = []
        for config in chunk:
            if groups and groups[-1][0] == config:
                groups[-1] = (config, groups[-1][1] + 1)
            else:
                groups.append((config, 1))
        add(tuple(groups), 1, used)
    return tuple(NodePool(groups, count, used) for groups, (count, used) in pools.items())
