"""The fit on one node size: the optimal GPUs and nodes, grouped into pools, their replicas, cost and stack.

The solver (``domain.fit_solver``) gives pools of identical nodes. With the GPU Operator's MIG manager a node's GPUs
may each take their own layout or stay whole, so a node mixing layouts is a pool whose stack entry lists its GPUs by
layout (``mig.layout: [{gpus, mix}, {gpus, whole: true}]``); a node cut alike keeps the plain ``mig.layout``. With
the cloud's per-pool profile every GPU of a pool is cut alike and whole GPUs have a pool of their own. A node's GPUs
beyond the ones the demand needs are reported as spare. The greedy baseline gives each profile its own
``all-<profile>`` GPUs, as one would by hand.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.prices import Price, PriceBook
from ..config.demand import Demand
from ..domain.cost import HOURS_PER_MONTH
from ..domain.fit_solver import LAYOUTS_TIME_LIMIT, Group, Objective, Profile, Solution, solve
from ..domain.mig_layouts import Layout, check_layout
from ..domain.node_layout import NodeLayout
from .requests import SizeRequest, uses_operator

WHOLE_POOL = "whole"


@dataclass(frozen=True)
class FitPool:
    """One pool of the answer: its nodes' GPUs by layout (None: whole GPUs), the GPUs the demand uses, its nodes."""

    name: str
    groups: tuple[Group, ...]
    gpus: int
    nodes: int
    gpus_per_node: int

    @property
    def layout(self) -> Layout | None:
        """The one layout of a pool cut alike (None: whole GPUs, or GPUs of several layouts)."""
        return self.groups[0][0] if len(self.groups) == 1 else None

    @property
    def per_node(self) -> dict[str | None, int]:
        """What one node offers: instances per MIG profile, and whole GPUs under None."""
        offered: dict[str | None, int] = {}
        for config, gpus in self.groups:
            for profile, count in config if config is not None else ((None, 1),):
                offered[profile] = offered.get(profile, 0) + count * gpus
        return offered

    @property
    def spare(self) -> int:
        return self.nodes * self.gpus_per_node - self.gpus


@dataclass(frozen=True)
class GpuUse:
    """Alike GPUs the demand uses: their pool and layout, how many, and the replicas of each workload one holds.
    Runs of alike GPUs keep the answer's size to the workloads', not the GPUs' (a million replicas)."""

    pool: str
    layout: Layout | None
    gpus: int
    holds: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "gpus": self.gpus,
            "layout": dict(self.layout) if self.layout is not None else "whole",
            "holds": self.holds,
        }


@dataclass(frozen=True)
class SizeFit:
    """The answer on one size."""

    demand: Demand
    request: SizeRequest
    solution: Solution
    pools: tuple[FitPool, ...]
    lower_bound: int
    greedy_gpus: int
    greedy_nodes: int
    price: Price | None
    notes: tuple[str, ...]
    stack: dict[str, Any]

    @functools.cached_property
    def per_gpu(self) -> tuple[GpuUse, ...]:
        """Which replicas the GPUs hold: worked out only for the sizes shown in full (``_per_gpu``)."""
        return _per_gpu(self.demand, self.request, self.solution.configs, self.pools)

    @property
    def gpus(self) -> int:
        return sum(pool.gpus for pool in self.pools)

    @property
    def nodes(self) -> int:
        return sum(pool.nodes for pool in self.pools)

    @property
    def monthly(self) -> float | None:
        return None if self.price is None else round(self.price.per_hour * self.nodes * HOURS_PER_MONTH, 2)

    @property
    def proven(self) -> bool:
        return self.solution.proven

    @property
    def stopped_by_time(self) -> bool:
        return self.solution.stopped_by_time


def fit_size(
    demand: Demand,
    request: SizeRequest,
    book: PriceBook,
    time_limit: float,
    objective: Objective = "bill",
    layouts_time: float = LAYOUTS_TIME_LIMIT,
) -> SizeFit | None:
    """The fit on ``request.size``, or None when no layout of its GPU holds some demanded profile."""
    size, gpu = request.size, request.size.gpu
    wanted = request.demand(demand.workloads)
    profiles = {p.name: Profile(p.name, p.compute_slices, p.memory_slices) for p in gpu.profiles}
    solution = solve(
        wanted,
        request.layouts,
        profiles,
        (gpu.compute_slices, gpu.memory_slices),
        size.gpus,
        time_limit,
        whole=request.whole,
        per_gpu=not request.native_profiles,
        objective=objective,
        layouts_time=layouts_time,
    )
    if solution is None:
        return None
    pools = _pools(solution, request)
    greedy_gpus = greedy_nodes = 0
    for name, count in wanted.items():
        gpus = -(-count // gpu.profile(name).max_instances)  # type: ignore[union-attr]
        greedy_gpus, greedy_nodes = greedy_gpus + gpus, greedy_nodes + -(-gpus // size.gpus)
    greedy_gpus += request.whole
    greedy_nodes += -(-request.whole // size.gpus)
    layouts = [config for pool in pools for config, _ in pool.groups if config is not None]
    notes = tuple(dict.fromkeys(note for layout in layouts for note in check_layout(gpu, dict(layout)).notes))
    price = book.lookup(size.name, demand.region, "onDemand")
    return SizeFit(
        demand,
        request,
        solution,
        pools,
        solution.lower_bound,
        greedy_gpus,
        greedy_nodes,
        price,
        notes,
        _stack(demand, request, pools),
    )


def _pools(solution: Solution, request: SizeRequest) -> tuple[FitPool, ...]:
    per_node = request.size.gpus
    pools, index = [], 0
    for pool in solution.pools:
        if all(config is None for config, _ in pool.groups):
            name = WHOLE_POOL
        else:
            index += 1
            name = f"mig{index}"
        pools.append(FitPool(name, pool.groups, pool.used, pool.nodes, per_node))
    return tuple(pools)


def _per_gpu(
    demand: Demand, request: SizeRequest, configs: tuple[tuple[Layout | None, int], ...], pools: tuple[FitPool, ...]
) -> tuple[GpuUse, ...]:
    """The replicas each GPU holds: workloads in the file's order take free instances GPU by GPU over the solver's
    GPUs (never a spare one), then the GPUs go to the pools that have their layout. GPUs are kept as runs of alike
    ones, split where a workload stops part way, so the work is linear in workloads and runs, never in GPUs."""
    runs: list[_Run] = [_Run(config, gpus, dict(config) if config else {None: 1}, {}) for config, gpus in configs]
    for workload in demand.workloads:
        left = workload.count
        profile = request.profile_of.get(workload.name)
        index = 0
        while left:
            assert index < len(runs), f"{workload.name}: {left} replicas without a GPU (a fit bug)"
            run = runs[index]
            each = run.free.get(profile, 0)
            if each == 0:
                index += 1
                continue
            full, part = divmod(min(left, each * run.gpus), each)
            pieces = [
                run.taken(full, workload.name, profile, each),
                run.taken(1 if part else 0, workload.name, profile, part),
            ]
            rest = run.gpus - full - (1 if part else 0)
            pieces.append(_Run(run.config, rest, run.free, run.holds))
            runs[index : index + 1] = [piece for piece in pieces if piece.gpus]
            left -= full * each + part
    room = {(pool.name, config): gpus * pool.nodes for pool in pools for config, gpus in pool.groups}
    placed: list[GpuUse] = []
    for run in runs:
        left = run.gpus
        for (pool, config), free in room.items():
            if config == run.config and free and left and run.holds:
                taken = min(free, left)
                room[pool, config], left = free - taken, left - taken
                placed.append(GpuUse(pool, config, taken, run.holds))
        assert left == 0 or not run.holds, "the pools hold the solver's GPUs (a fit bug)"
    return tuple(_merged(placed))


@dataclass
class _Run:
    config: Layout | None
    gpus: int
    free: dict[str | None, int]  # per GPU: instances per profile still free (None: the whole GPU)
    holds: dict[str, int]  # per GPU: replicas per workload

    def taken(self, gpus: int, workload: str, profile: str | None, replicas: int) -> "_Run":
        """``gpus`` of these GPUs, each giving ``replicas`` more of the workload an instance of ``profile``."""
        free = {**self.free, profile: self.free[profile] - replicas}
        return _Run(self.config, gpus, free, {**self.holds, workload: self.holds.get(workload, 0) + replicas})


def _merged(uses) -> list[GpuUse]:
    merged: list[GpuUse] = []
    for use in uses:
        if merged and (merged[-1].pool, merged[-1].layout, merged[-1].holds) == (use.pool, use.layout, use.holds):
            use = GpuUse(use.pool, use.layout, merged[-1].gpus + use.gpus, use.holds)
            merged.pop()
        merged.append(use)
    return merged


def _stack(demand: Demand, request: SizeRequest, pools: tuple[FitPool, ...]) -> dict[str, Any]:
    """``gpuPools`` and ``gpuSoftware`` as a stack file spells them, for ``gpupools check`` to accept as they are."""
    gpu = request.size.gpu
    named = {tuple(sorted(layout.items())): name for name, layout in gpu.layouts.items()}
    entries: list[dict[str, Any]] = []
    profiles: set[str] = set()
    for pool in pools:
        entry: dict[str, Any] = {"name": pool.name, "size": request.size.name, "count": pool.nodes}
        profiles.update(name for config, _ in pool.groups for name, _ in config or ())
        if len(pool.groups) > 1:  # GPUs of one node cut differently: the per-GPU form, as the one MIG model spells it
            entry["mig"] = {"layout": _node(pool.groups).to_json()}
        elif pool.layout is not None and request.native_profiles:
            ((profile, _),) = pool.layout
            entry["mig"] = {"profile": request.native_profiles[profile]}
        elif pool.layout is not None:
            entry["mig"] = {"layout": named.get(pool.layout, dict(pool.layout))}
        entries.append(entry)
    software: dict[str, Any]
    if profiles and uses_operator(demand):
        software = {"installer": "gpu-operator", "migStrategy": "mixed"}
        if cloud_named(demand.cloud).native_mig_profiles:  # the operator cuts GPUs only where it owns the driver
            software["driver"] = "operator"
    elif profiles:
        software = {"installer": "device-plugin", "migStrategy": "mixed" if len(profiles) > 1 else "single"}
    else:
        software = {"installer": "device-plugin", "migStrategy": "none"}
    return {"gpuPools": entries, "gpuSoftware": software}


def _node(groups: tuple[Group, ...]) -> NodeLayout:
    """A node of the answer in the one MIG model (``domain.node_layout``), which spells the stack's per-GPU form."""
    return NodeLayout.of((gpus, config) for config, gpus in groups)
