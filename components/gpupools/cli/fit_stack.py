"""``gpupools fit DEMAND --stack NAME`` (or ``--config PATH``): day two, the cheapest change to a running stack.

``fit/day_two`` finds the change and writes the changed stack config; this module plans the stack as it is (the
base) and as changed (the head) offline, once each, and compares the two plans with ``plan --base``'s own capacity
and cost diffs (``plan.diff``, ``plan.cost_diff``), so a re-cut's capacity offline and the money are said by the
same rules, in the same words. Then the changed stack entries, which ``gpupools check`` accepts as they are.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

import yaml

from ..config.demand import read_demand_file
from ..config.errors import ConfigError, Problem
from ..config.loading import StackFile
from ..domain.node_layout import NodeLayout
from ..fit.answer import OUT_OF_SCOPE
from ..fit.day_two import DayTwo, day_two
from ..plan.cost_diff import cost_diff
from ..plan.diff import CapacityDiff, diff_plans
from ..plan.offline import plan_stack
from ..resolve.stack_loader import validated_once
from .check import print_lines
from ..untrusted.text import json_text
from .cost_render import cost_diff_lines, cost_headline
from .render import diff_lines


def run_fit_stack(stack_file: StackFile, args: argparse.Namespace) -> int:
    from ..price_lists.book import current_price_book  # the local price cache, else the packaged snapshot

    if args.kueue or args.format == "kueue" or args.svg is not None or args.objective != "bill":
        raise ConfigError(
            [
                Problem(
                    "--stack",
                    "takes neither --kueue, --svg nor --objective gpus: it answers with a change to a stack, "
                    "by new nodes, then re-cut nodes (docs/fit.md)",
                )
            ]
        )
    demand = read_demand_file(args.demand)
    book = current_price_book()
    with validated_once(stack_file.config) as stack:  # the base plan below gets this Stack, not a second check
        change = day_two(stack, stack_file, demand, book, args.time_limit)
        base = plan_stack(stack_file).to_json()
    head = plan_stack(dataclasses.replace(stack_file, config=change.config)).to_json()
    diff = diff_plans(base, head)
    costs = cost_diff(base, head, diff)
    if args.format == "json":
        data = {
            **change_json(change, book.currency),
            "diff": {**diff.to_json(), "cost": costs.to_json(), "costHeadline": cost_headline(costs)},
        }
        print(json_text(data))
        return 0
    headline, *details = diff_lines(diff)
    diff_text = [f"{headline}; {cost_headline(costs)}", *details, *cost_diff_lines(costs)]
    print_lines(
        report_lines(change, book.currency, diff, stack_file.stack)
        + ["", "The change, as plan --base shows it:"]
        + diff_text
        + ["", "The stack entries after the change (gpupools check accepts them as they are):"]
        + yaml.safe_dump(change.entries, sort_keys=False).rstrip("\n").split("\n")
    )
    return 0


def report_lines(change: DayTwo, currency: str, diff: CapacityDiff, stack: str) -> list[str]:
    """The change in short: each pool of the size kept, re-cut (offline, as the diff says) or grown, the new
    pools, and the objective's figures with what is proven."""
    solution, size = change.solution, change.size
    offline = {pool.pool for pool in diff.pools if pool.outage}
    lines = [f"demand ({change.demand.cloud}):"]
    for workload in change.demand.workloads:
        asked = workload.slice or (f"memory {workload.memory}" if workload.memory else "a whole GPU")
        profile = change.request.profile_of.get(workload.name)
        shown = f" -> {profile}" if profile and profile != workload.slice else ""
        lines.append(f"  {workload.name}: {workload.count}x {asked}{shown}")
    lines += ["", f"day two on stack {stack}, its pools of {size.name} ({size.gpus}x {size.gpu.name} per node):"]
    for pool in solution.pools:
        nodes = f"{pool.pool.nodes} node{'s' if pool.pool.nodes != 1 else ''}"
        if pool.recut:
            when = (
                "capacity OFFLINE while the MIG manager re-cuts it"
                if pool.pool.name in offline
                else "no capacity offline"
            )
            lines.append(
                f"  pool {pool.pool.name}: re-cut, {nodes}: [{pool.pool.node.describe()}] -> "
                f"[{pool.after.describe()}]; {when}"
            )
        else:
            lines.append(f"  pool {pool.pool.name}: kept, {nodes} of [{pool.pool.node.describe()}]")
    for (name, nodes), added in zip(change.added_to, solution.added):
        node = NodeLayout.of((gpus, config) for config, gpus in added.groups)
        lines.append(f"  pool {name}: +{nodes} node{'s' if nodes != 1 else ''} of [{node.describe()}]")
    if change.other_sizes:
        lines.append(f"  kept, other sizes (hold none of the demand): {', '.join(change.other_sizes)}")
    if change.strategy_change:
        before, after = change.strategy_change
        lines.append(f"  gpuSoftware.migStrategy: {before} -> {after} (a node now has several profiles or whole GPUs)")
    money = (
        f"no list price for {size.name} in the stack's region"
        if change.new_monthly is None
        else f"{change.new_monthly:,.2f} {currency}/month new"
    )
    proof = (
        "proven optimal (HiGHS optimal): fewest new nodes, then fewest re-cut nodes"
        if solution.proven
        else f"best found, not proven (time limit): at least {solution.bound_new_nodes} new nodes"
    )
    lines.append(f"new nodes: {solution.new_nodes} ({money}), re-cut nodes: {solution.recut_nodes}; {proof}")
    lines.append(f"note: {OUT_OF_SCOPE}; nodes are never removed (gpupools fit DEMAND alone: the optimum from scratch)")
    return lines


def change_json(change: DayTwo, currency: str) -> dict[str, Any]:
    solution = change.solution
    return {
        "demand": change.demand.model_dump(by_alias=True, exclude_none=True),
        "size": change.size.name,
        "gpusPerNode": change.size.gpus,
        "profiles": dict(change.request.profile_of),  # workload -> the MIG profile each replica gets
        "objective": ["newNodes", "recutNodes", "newGpus"],
        "newNodes": solution.new_nodes,
        "recutNodes": solution.recut_nodes,
        "newGpus": solution.new_gpus,
        "newMonthly": change.new_monthly,
        "currency": currency,
        "proven": solution.proven,
        "lowerBound": {"newNodes": solution.bound_new_nodes},
        "stoppedByTimeLimit": solution.stopped_by_time,
        "pools": [
            {
                "pool": pool.pool.name,
                "nodes": pool.pool.nodes,
                "change": "recut" if pool.recut else "kept",
                "before": pool.pool.node.to_json(),
                "after": pool.after.to_json(),
            }
            for pool in solution.pools
        ],
        "added": [{"pool": name, "nodes": nodes} for name, nodes in change.added_to],
        "otherSizes": list(change.other_sizes),
        "stack": change.entries,
    }
