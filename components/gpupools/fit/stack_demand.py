"""A stack's own demand (``gpupools:demand``): does the stack still hold it, and what would the optimum need?

``plan`` calls this when a stack names the demand file its pools were sized for, so a reviewer sees both a pool
that no longer holds the demand and waste: the stack's GPUs beside the optimum's (``fit`` on the stack's size).
Each workload is mapped to a profile of the stack's first MIG pool's GPU (or the demand's own ``size``); the
stack holds the demand when its capacity (``domain.capacity``: usable slices per resource) has at least as many
devices of each resource as the demand has replicas. Whole-GPU workloads count the ``nvidia.com/gpu`` of pools
without MIG.
"""

from __future__ import annotations

from pathlib import Path

from ..catalog.instances import INSTANCE_SIZES
from ..catalog.labels import GPU_RESOURCE, mig_resource_name
from ..catalog.prices import PriceBook
from ..config.demand import read_demand_file
from ..config.errors import ConfigError, Problem
from ..domain.capacity import PoolCapacity
from ..domain.stack import Stack
from .answer import fit_demand
from .requests import size_request

TIME_LIMIT = 4.0  # seconds of a plan spent on the optimum; an answer cut short says so


def demand_lines(stack: Stack, stack_path: Path, capacity: list[PoolCapacity], book: PriceBook) -> list[str]:
    """Lines for the plan: whether the pools hold the demand (what is short), and the optimum's GPUs."""
    relative = stack.config.demand
    if relative is None:
        return []
    path = stack_path.parent / relative
    demand = read_demand_file(path)
    mig_pools = [pool for pool in stack.pools if pool.mig is not None]
    size_name = demand.size or (mig_pools[0] if mig_pools else stack.pools[0]).size.name
    size = INSTANCE_SIZES.get(size_name)
    if size is None:
        raise ConfigError([Problem("gpupools:demand", f"{relative}: size {size_name} is not in the catalog")])
    request, problems = size_request(demand, size)
    if request is None:
        raise ConfigError([Problem("gpupools:demand", f"{relative}: {why}") for why in problems])
    single = stack.mig_strategy == "single"
    needed: dict[str, int] = {}
    for workload in demand.workloads:
        profile = request.profile_of.get(workload.name)
        resource = GPU_RESOURCE if profile is None else mig_resource_name(profile)
        needed[resource] = needed.get(resource, 0) + workload.count
    held: dict[str, int] = {}
    for pool, row in zip(stack.pools, capacity):
        for resource, count in row.total.items():
            if single and pool.mig is not None and resource == GPU_RESOURCE:  # single: MIG devices as nvidia.com/gpu
                resource = mig_resource_name(pool.mig.profiles[0])  # single: one profile
            held[resource] = held.get(resource, 0) + count
    short = [f"{resource} {held.get(resource, 0)} of {count}" for resource, count in needed.items()]
    short = [text for (resource, count), text in zip(needed.items(), short) if held.get(resource, 0) < count]
    stack_gpus = sum(row.nodes * row.gpus_per_node for row in capacity)
    optimum = fit_demand(demand.model_copy(update={"size": size.name}), book, TIME_LIMIT).chosen
    proof = "" if optimum.proven else " (not proven: time limit)"
    verdict = (
        f"the pools hold the demand in {relative}"
        if not short
        else f"the pools no longer hold the demand in {relative}: short of {', '.join(short)}"
    )
    return [
        f"demand: {verdict}; the optimum on {size.name} needs {optimum.gpus} GPUs on {optimum.nodes} nodes"
        f"{proof}, this stack has {stack_gpus} GPUs (gpupools fit {relative})"
    ]
