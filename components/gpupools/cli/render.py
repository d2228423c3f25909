"""Text and Markdown renderings shared by ``check`` and ``plan``."""

from __future__ import annotations

from typing import Sequence

from ..domain.capacity import PoolCapacity
from ..domain.capacity_inputs import CapacityInputs
from ..plan.diff import CapacityDiff, Count, PoolDiff
from ..domain.stack import PLAIN_POD, Placement


def _resources(resources: dict[str, int]) -> str:
    return ", ".join(f"{count}x {name}" for name, count in resources.items()) or "-"


def _max_pods(c: PoolCapacity) -> str:
    """``79 (13 ds)``: the pods a node may hold and how many of them are daemonsets; ``-`` where the cloud decides."""
    return "-" if c.max_pods is None else f"{c.max_pods} ({c.daemonset_pods} ds)"


def _per_node(c: PoolCapacity) -> str:
    """Usable slices per node, with the advertised count when maxPods cuts them."""
    if not c.cut:
        return _resources(c.per_node)
    return ", ".join(f"{count}x {name} (of {c.advertised.get(name, count)})" for name, count in c.per_node.items())


def capacity_lines(
    capacity: list[PoolCapacity], warnings: list[str], inputs: Sequence[CapacityInputs] = ()
) -> list[str]:
    """The capacity table: usable slices per node and in total, never more than the node's pods can take; then
    per pool what buys that capacity (``inputs``)."""
    header = ("POOL", "SIZE", "GPU", "NODES", "GPUS/NODE", "MAX PODS", "PER NODE", "TOTAL")
    rows = [header] + [
        (c.pool, c.size, c.gpu, str(c.nodes), str(c.gpus_per_node), _max_pods(c), _per_node(c), _resources(c.total))
        for c in capacity
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    if inputs:
        lines += ["Capacity inputs:"] + [f"  {pool.pool}: {pool.line()}" for pool in inputs]
    return lines + [f"warning: {warning}" for warning in warnings]


def markdown_capacity(
    capacity: list[PoolCapacity], warnings: list[str], inputs: Sequence[CapacityInputs] = ()
) -> list[str]:
    lines = [
        "| pool | size | GPU | nodes | GPUs/node | max pods | per node | total |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {c.pool} | {c.size} | {c.gpu} | {c.nodes} | {c.gpus_per_node} | {_max_pods(c)} | {_per_node(c)} | "
        f"{_resources(c.total)} |"
        for c in capacity
    ]
    if inputs:
        lines += ["", "| pool | capacity inputs |", "|---|---|"]
        lines += [f"| {pool.pool} | {_cell(pool.line())} |" for pool in inputs]
    return lines + [f"\n> warning: {warning}" for warning in warnings]


def _cell(text: str) -> str:
    """Text inside a Markdown table cell: a ``|`` would end the cell."""
    return text.replace("|", "\\|")


def placement_lines(placements: list[Placement]) -> list[str]:
    """Per pool, where each NVIDIA daemonset lands: ``ok`` means as it should, on or off the pool."""
    lines = []
    for row in placements:
        verdict = "ok" if row.ok else "PROBLEM"
        where = "schedules" if row.schedules else "stays off"
        who = f"{row.daemonset} (must stay off)" if row.daemonset == PLAIN_POD else row.daemonset
        lines.append(f"  {row.pool}: {who}: {where} [{verdict}]")
    return lines


def _changes(counts: dict[str, Count]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items()) or "-"


def _how(pool: PoolDiff) -> str:
    """The change, and for a replacement how and why:
    ``replaced by surge: new pool ... (gpuInstanceProfile change)``."""
    if not pool.replaced_by:
        return f"{pool.change}: {pool.effect.what}" if pool.effect else pool.change
    why = f"{', '.join(pool.replaced_by)} change"
    return f"replaced by {pool.replacement.describe(pool.gpus)} ({why})" if pool.replacement else f"replaced ({why})"


def _pool_change(pool: PoolDiff) -> str:
    return f"pool {pool.pool}: {_how(pool)}; nodes {pool.nodes}, GPUs {pool.gpus}; {_changes(pool.resources)}"


def diff_lines(diff: CapacityDiff) -> list[str]:
    """The capacity diff: the headline first, then each pool that changes, then the stack's totals."""
    lines = [diff.headline(), f"  against base stack {diff.base_stack}"]
    lines += [f"  {_pool_change(pool)}" for pool in diff.pools if pool.change != "unchanged"]
    lines.append(f"  total: nodes {diff.nodes}, GPUs {diff.gpus}; {_changes(diff.resources)}")
    return lines


def markdown_diff(diff: CapacityDiff) -> list[str]:
    """The diff for a pull request comment; its first line says whether the change removes GPU capacity."""
    marker = ":warning: " if diff.removes_capacity or diff.takes_capacity_offline else ""
    lines = [
        f"**{marker}{diff.headline()}**",
        "",
        "| pool | change | nodes | GPUs | usable slices |",
        "|---|---|---|---|---|",
    ]
    for pool in diff.pools:
        lines.append(f"| {pool.pool} | {_how(pool)} | {pool.nodes} | {pool.gpus} | {_changes(pool.resources)} |")
    lines.append(f"| **total** | | {diff.nodes} | {diff.gpus} | {_changes(diff.resources)} |")
    return lines
