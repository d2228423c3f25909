"""The fit on one node size: the optimal per-GPU layouts, grouped into pools, their replicas, cost and stack.

A stack pool cuts every GPU of its nodes alike (``mig.layout``, or the cloud's one profile per pool), so the
solver's layouts become one pool each, with its GPUs rounded up to whole nodes; a node's GPUs beyond the ones the
demand needs are reported as spare. Whole-GPU workloads get a pool without MIG. The greedy baseline gives each
profile its own ``all-<profile>`` GPUs, as one would by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.prices import Price, PriceBook
from ..config.demand import Demand
from ..domain.cost import HOURS_PER_MONTH
from ..domain.fit_solver import Profile, Solution, slice_bound, solve
from ..domain.mig_layouts import Layout, check_layout
from .requests import SizeRequest, uses_operator

WHOLE_POOL = "whole"


@dataclass(frozen=True)
class FitPool:
    """One pool of the answer: its layout (None: whole GPUs), the GPUs the demand uses, and its nodes."""

    name: str
    layout: Layout | None
    gpus: int
    nodes: int
    gpus_per_node: int

    @property
    def spare(self) -> int:
        return self.nodes * self.gpus_per_node - self.gpus


@dataclass(frozen=True)
class GpuUse:
    """One GPU the demand uses: its pool, node and layout, and how many replicas of each workload it holds."""

    pool: str
    node: int
    layout: Layout | None
    holds: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "node": self.node,
            "layout": dict(self.layout) if self.layout is not None else "whole",
            "holds": self.holds,
        }


@dataclass(frozen=True)
class SizeFit:
    """The answer on one size."""

    request: SizeRequest
    solution: Solution | None
    pools: tuple[FitPool, ...]
    per_gpu: tuple[GpuUse, ...]
    lower_bound: int
    greedy_gpus: int
    greedy_nodes: int
    price: Price | None
    notes: tuple[str, ...]
    stack: dict[str, Any]

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
        return self.solution is None or (self.solution.proven_gpus and self.solution.proven_nodes)

    @property
    def stopped_by_time(self) -> bool:
        return self.solution is not None and self.solution.stopped_by_time


def fit_size(demand: Demand, request: SizeRequest, book: PriceBook, time_limit: float) -> SizeFit | None:
    """The fit on ``request.size``, or None when no layout of its GPU holds some demanded profile."""
    size, gpu = request.size, request.size.gpu
    wanted = request.demand(demand.workloads)
    solution: Solution | None = None
    if wanted:
        profiles = {p.name: Profile(p.name, p.compute_slices, p.memory_slices) for p in gpu.profiles}
        solution = solve(
            wanted, request.layouts, profiles, (gpu.compute_slices, gpu.memory_slices), size.gpus, time_limit
        )
        if solution is None:
            return None
    pools = _pools(solution, request)
    per_gpu = _per_gpu(demand, request, pools)
    bound = request.whole
    greedy_gpus = greedy_nodes = 0
    if wanted:
        profiles_by_name = {p.name: p for p in gpu.profiles}
        bound += slice_bound(
            wanted,
            {n: Profile(n, p.compute_slices, p.memory_slices) for n, p in profiles_by_name.items()},
            gpu.compute_slices,
            gpu.memory_slices,
        )
        for name, count in wanted.items():
            gpus = -(-count // profiles_by_name[name].max_instances)
            greedy_gpus, greedy_nodes = greedy_gpus + gpus, greedy_nodes + -(-gpus // size.gpus)
    greedy_gpus += request.whole
    greedy_nodes += -(-request.whole // size.gpus)
    notes = tuple(
        dict.fromkeys(note for pool in pools if pool.layout for note in check_layout(gpu, dict(pool.layout)).notes)
    )
    price = book.lookup(size.name, demand.region, "onDemand")
    return SizeFit(
        request,
        solution,
        pools,
        per_gpu,
        bound,
        greedy_gpus,
        greedy_nodes,
        price,
        notes,
        _stack(demand, request, pools),
    )


def _pools(solution: Solution | None, request: SizeRequest) -> tuple[FitPool, ...]:
    per_node = request.size.gpus
    pools = []
    if solution is not None:
        for index, (layout, gpus) in enumerate(solution.layouts, start=1):
            pools.append(FitPool(f"mig{index}", layout, gpus, -(-gpus // per_node), per_node))
    if request.whole:
        pools.append(FitPool(WHOLE_POOL, None, request.whole, -(-request.whole // per_node), per_node))
    return tuple(pools)


def _per_gpu(demand: Demand, request: SizeRequest, pools: tuple[FitPool, ...]) -> tuple[GpuUse, ...]:
    """Each used GPU with the replicas it holds: workloads in the file's order take free instances GPU by GPU."""
    gpus = [
        (pool, index // pool.gpus_per_node, dict(pool.layout) if pool.layout else None, {})
        for pool in pools
        for index in range(pool.gpus)
    ]
    free = [dict(layout) if layout else {} for _, _, layout, _ in gpus]
    for workload in demand.workloads:
        left = workload.count
        profile = request.profile_of.get(workload.name)
        for index, (pool, _, layout, holds) in enumerate(gpus):
            if left == 0:
                break
            if profile is None and layout is None and not holds:
                holds[workload.name], left = 1, left - 1
            elif profile is not None and free[index].get(profile, 0) > 0:
                taken = min(left, free[index][profile])
                free[index][profile] -= taken
                holds[workload.name], left = holds.get(workload.name, 0) + taken, left - taken
        assert left == 0, f"{workload.name}: {left} replicas without a GPU (a fit bug)"
    return tuple(GpuUse(pool.name, node, pool.layout, holds) for pool, node, _, holds in gpus)


def _stack(demand: Demand, request: SizeRequest, pools: tuple[FitPool, ...]) -> dict[str, Any]:
    """``gpuPools`` and ``gpuSoftware`` as a stack file spells them, for ``gpupools check`` to accept as they are."""
    gpu = request.size.gpu
    named = {tuple(sorted(layout.items())): name for name, layout in gpu.layouts.items()}
    entries: list[dict[str, Any]] = []
    profiles: set[str] = set()
    for pool in pools:
        entry: dict[str, Any] = {"name": pool.name, "size": request.size.name, "count": pool.nodes}
        if pool.layout is not None:
            profiles.update(name for name, _ in pool.layout)
            if request.native_profiles:
                ((profile, _),) = pool.layout
                entry["mig"] = {"profile": request.native_profiles[profile]}
            else:
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
