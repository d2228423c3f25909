"""``gpupools fit DEMAND --stack NAME``: the cheapest change to a running stack's pools that holds a new demand.

The stack's pools of the fitted size (the demand's ``size``, else the stack's first MIG pool's) are live: each is
kept as it is, re-cut in place by the GPU Operator's MIG manager, or grown by nodes of a layout it has; new nodes of
other layouts make new pools. ``domain.day_two_solver`` chooses (new nodes first, then re-cut nodes, then new GPUs);
this module maps the stack to it and writes the changed stack's ``gpupools:gpuPools`` and ``gpupools:gpuSoftware``,
which ``cli/fit_stack`` plans beside the stack as it is, so the change is shown as ``plan --base`` shows one (and a
re-cut's capacity offline is ``plan/recut.py``'s call, not this module's). Pools of other sizes stay as they are and
hold none of the demand. Nodes are never removed: ``gpupools fit DEMAND`` alone gives the optimum from scratch.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.instances import INSTANCE_SIZES, InstanceSize
from ..catalog.prices import Price, PriceBook
from ..config.demand import Demand
from ..config.errors import NAMESPACE, ConfigError, Problem
from ..config.loading import StackFile
from ..domain.cost import HOURS_PER_MONTH, stack_region
from ..domain.day_two_solver import DayTwoSolution, LivePool, solve_day_two
from ..domain.node_layout import NodeLayout
from ..domain.stack import Stack
from .requests import SizeRequest, size_request

POOLS_KEY = f"{NAMESPACE}:gpuPools"
SOFTWARE_KEY = f"{NAMESPACE}:gpuSoftware"


@dataclass(frozen=True)
class DayTwo:
    """The change: the solver's answer on ``size``, the changed stack config, and the new nodes' price."""

    demand: Demand
    size: InstanceSize
    request: SizeRequest
    solution: DayTwoSolution
    config: dict[str, Any]  # the stack file's config after the change
    added_to: tuple[tuple[str, int], ...]  # (pool, nodes) of the new nodes, in an existing pool or a new one
    price: Price | None
    other_sizes: tuple[str, ...]  # pools of other sizes, kept and not counted
    strategy_change: tuple[str, str] | None  # gpuSoftware.migStrategy before and after, when it changes

    @property
    def new_monthly(self) -> float | None:
        if self.price is None:
            return None
        return round(self.price.per_hour * self.solution.new_nodes * HOURS_PER_MONTH, 2)

    @property
    def entries(self) -> dict[str, Any]:
        """The stack entries after the change, as they go into ``Pulumi.<stack>.yaml``."""
        return {
            f"{NAMESPACE}:{name}": self.config.get(f"{NAMESPACE}:{name}", self.config.get(name))
            for name in ("gpuPools", "gpuSoftware")
            if f"{NAMESPACE}:{name}" in self.config or name in self.config
        }


def day_two(stack: Stack, stack_file: StackFile, demand: Demand, book: PriceBook, time_limit: float) -> DayTwo:
    """The cheapest change (module docstring); a ``ConfigError`` naming the field when it cannot be planned."""
    if demand.cloud != stack.cloud:
        raise ConfigError(
            [Problem("cloud", f"the demand is for {demand.cloud}; stack {stack_file.stack} is on {stack.cloud}")]
        )
    if not stack.config.gpu_software.manages_mig_layouts:
        raise ConfigError(
            [
                Problem(
                    "gpuSoftware.installer",
                    f"{stack.config.gpu_software.installer} does not re-cut GPUs on live nodes; fit --stack plans "
                    "with the GPU Operator's MIG manager (installer: gpu-operator)",
                )
            ]
        )
    size = _size(stack, demand)
    # Another GPU's profile becomes this one's equivalent unless the demand names its size (as plain fit does).
    request, problems = size_request(demand.model_copy(update={"mig_manager": "operator"}), size)
    if request is None:
        raise ConfigError([Problem("workloads", why) for why in problems])
    live = [
        LivePool(
            pool.name,
            pool.nodes,
            pool.mig.node if pool.mig is not None else NodeLayout.of([(size.gpus, None)]),
            recuttable=pool.mig is None or pool.mig.applied_by == "operator",
            offline_nodes=pool.config.autoscaling.max_count if pool.config.autoscaling else None,
        )
        for pool in stack.pools
        if pool.size.name == size.name
    ]
    solution = solve_day_two(
        request.demand(demand.workloads), request.whole, request.layouts, live, size.gpus, time_limit
    )
    if solution is None:
        raise ConfigError([Problem("workloads", f"no valid layout of {size.gpu.name} holds every demanded profile")])
    config, added_to, strategy = _changed_config(stack, stack_file, size, solution)
    return DayTwo(
        demand,
        size,
        request,
        solution,
        config,
        added_to,
        book.lookup(size.name, stack_region(stack), "onDemand"),
        tuple(pool.name for pool in stack.pools if pool.size.name != size.name),
        strategy,
    )


def _size(stack: Stack, demand: Demand) -> InstanceSize:
    """The demand's ``size``, else the stack's first MIG pool's, else its first pool's (as ``stack_demand`` does)."""
    candidates = [pool for pool in stack.pools if pool.mig is not None] or stack.pools
    name = demand.size or (candidates[0].size.name if candidates else None)
    size = INSTANCE_SIZES.get(name) if name else None
    if size is not None and size.cloud == stack.cloud:
        return size
    display = cloud_named(stack.cloud).display_name
    if name is None:
        why = f"the stack has no pool to take a size from: name a {display} size in the demand"
    else:
        why = f"'{name}' is not a {display} size the catalog knows (name one in the demand)"
    raise ConfigError([Problem("size", why)])


def _changed_config(
    stack: Stack, stack_file: StackFile, size: InstanceSize, solution: DayTwoSolution
) -> tuple[dict[str, Any], tuple[tuple[str, int], ...], tuple[str, str] | None]:
    """The stack file's config with re-cut pools' ``mig.layout``, grown counts and new pools; ``migStrategy: mixed``
    where a node now needs it."""
    config = copy.deepcopy(stack_file.config)
    pools_key = POOLS_KEY if POOLS_KEY in config or "gpuPools" not in config else "gpuPools"
    entries: list[dict[str, Any]] = config.setdefault(pools_key, [])
    by_name = {entry["name"]: entry for entry in entries}
    nodes: dict[str, NodeLayout] = {}
    for change in solution.pools:
        nodes[change.pool.name] = change.after
        if change.recut:
            by_name[change.pool.name]["mig"] = {"layout": change.after.to_json()}
    growable = {pool.name for pool in stack.pools if pool.size.name == size.name and pool.config.autoscaling is None}
    added_to: list[tuple[str, int]] = []
    fresh = 0
    for pool in solution.added:
        node = NodeLayout.of((gpus, config_) for config_, gpus in pool.groups)
        same = next((name for name, after in nodes.items() if after == node and name in growable), None)
        if same is not None:
            by_name[same]["count"] = by_name[same]["count"] + pool.nodes
            added_to.append((same, pool.nodes))
            continue
        fresh += 1
        while f"fit{fresh}" in by_name:
            fresh += 1
        entry: dict[str, Any] = {"name": f"fit{fresh}", "size": size.name, "count": pool.nodes}
        if node.cut_gpus:
            entry["mig"] = {"layout": node.to_json()}
        entries.append(entry)
        by_name[entry["name"]], nodes[entry["name"]] = entry, node
        added_to.append((entry["name"], pool.nodes))
    changed = fresh > 0 or any(change.recut for change in solution.pools)
    profiles = {name for node in nodes.values() for name in node.profiles}
    whole = any(node.whole_gpus for node in nodes.values())
    # what NodeLayout.needs_mixed asks of one node, asked of the stack's nodes together
    needs_mixed = len(profiles) > 1 or (bool(profiles) and whole)
    before = stack.mig_strategy
    after = "mixed" if changed and (needs_mixed or (profiles and before == "none")) else before
    strategy = None
    if after != before:
        key = SOFTWARE_KEY if SOFTWARE_KEY in config or "gpuSoftware" not in config else "gpuSoftware"
        software = config.setdefault(key, {})
        software["migStrategy"] = after
        strategy = (before, after)
    return config, tuple(added_to), strategy
