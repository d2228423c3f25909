"""A stack's own demand (``gpupools:demand``): does the stack still hold it, and what would the optimum need?

``plan`` calls this when a stack names the demand file its pools were sized for, so a reviewer sees both a pool
that no longer holds the demand and waste: the stack's GPUs beside the optimum's (``fit`` on the stack's size).
Each workload is mapped to a profile of the stack's first MIG pool's GPU (or the demand's own ``size``); the
stack holds the demand when its capacity (``domain.capacity``: usable slices per resource) has at least as many
devices of each resource as the demand has replicas. Whole-GPU workloads count the ``nvidia.com/gpu`` of pools
without MIG.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog.instances import INSTANCE_SIZES, InstanceSize
from ..catalog.labels import GPU_RESOURCE, mig_resource_name
from ..catalog.prices import PriceBook
from ..config.demand import Demand, read_demand_file, stack_demand_path
from ..config.loading import StackFile
from ..config.errors import ConfigError, Problem
from ..domain.capacity import PoolCapacity
from ..domain.stack import Stack
from .answer import fit_demand
from .requests import SizeRequest, size_request

TIME_LIMIT = 4.0  # seconds of a plan spent on the optimum; an answer cut short says so


@dataclass(frozen=True)
class StackDemand:
    """A stack's demand file, read and mapped to the size it is held on."""

    relative: str
    demand: Demand
    size: InstanceSize
    request: SizeRequest


def read_stack_demand(stack: Stack, stack_file: StackFile) -> StackDemand | None:
    """The stack's ``gpupools:demand``, its path checked once (``config.demand.stack_demand_path``) and its
    workloads mapped to the stack's size; ``check`` and ``plan`` both read it here, so they refuse the same."""
    relative = stack.config.demand
    if relative is None:
        return None
    path = stack_demand_path(stack_file.path, relative, stack_file.demand_outside_project)
    demand = read_demand_file(path)
    mig_pools = [pool for pool in stack.pools if pool.mig is not None]
    size_name = demand.size or (mig_pools[0] if mig_pools else stack.pools[0]).size.name
    size = INSTANCE_SIZES.get(size_name)
    if size is None:
        raise ConfigError([Problem("gpupools:demand", f"{relative}: size {size_name} is not in the catalog")])
    request, problems = size_request(demand, size)
    if request is None:
        raise ConfigError([Problem("gpupools:demand", f"{relative}: {why}") for why in problems])
    return StackDemand(relative, demand, size, request)


def held_line(stack: Stack, read: StackDemand, capacity: list[PoolCapacity]) -> tuple[str, bool]:
    """Whether the pools hold the demand (what is short), as the start of a line; and whether they do."""
    demand, request, relative = read.demand, read.request, read.relative
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
    verdict = (
        f"the pools hold the demand in {relative}"
        if not short
        else f"the pools no longer hold the demand in {relative}: short of {', '.join(short)}"
    )
    return verdict, not short


def check_lines(stack: Stack, stack_file: StackFile, capacity: list[PoolCapacity]) -> list[str]:
    """``check``'s line: whether the pools hold the demand; the optimum is ``plan``'s (it takes the solver)."""
    read = read_stack_demand(stack, stack_file)
    if read is None:
        return []
    verdict, _ = held_line(stack, read, capacity)
    return [f"demand: {verdict} (the optimum: gpupools plan, or gpupools fit {read.relative})"]


def demand_lines(stack: Stack, stack_file: StackFile, capacity: list[PoolCapacity], book: PriceBook) -> list[str]:
    """Lines for the plan: whether the pools hold the demand (what is short), and the optimum's GPUs."""
    read = read_stack_demand(stack, stack_file)
    if read is None:
        return []
    verdict, _ = held_line(stack, read, capacity)
    size, relative = read.size, read.relative
    stack_gpus = sum(row.nodes * row.gpus_per_node for row in capacity)
    optimum = fit_demand(read.demand.model_copy(update={"size": size.name}), book, TIME_LIMIT).chosen
    proof = "" if optimum.proven else " (not proven: time limit)"
    return [
        f"demand: {verdict}; the optimum on {size.name} needs {optimum.gpus} GPUs on {optimum.nodes} nodes"
        f"{proof}, this stack has {stack_gpus} GPUs (gpupools fit {relative})"
    ]
