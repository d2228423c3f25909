"""Text and Markdown renderings shared by ``check`` and ``plan``."""

from __future__ import annotations

from typing import Sequence

from ..domain.capacity import PoolCapacity
from ..domain.capacity_inputs import CapacityInputs
from ..plan.diff import CapacityDiff, Count, PoolDiff
from ..domain.stack import PLAIN_POD, Placement
from .markdown_parts import NVIDIA_PREFIX, short


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


def _short_resources(resources: dict[str, int]) -> str:
    return ", ".join(f"{count}× {short(name)}" for name, count in resources.items()) or "-"


def _short_per_node(c: PoolCapacity) -> str:
    if not c.cut:
        return _short_resources(c.per_node)
    return ", ".join(f"{n}× {short(name)} (of {c.advertised.get(name, n)})" for name, n in c.per_node.items())


def markdown_capacity(
    capacity: list[PoolCapacity], warnings: list[str], inputs: Sequence[CapacityInputs] = ()
) -> list[str]:
    """The capacity table (``nvidia.com/`` resources by their short names), then what buys it, as a list: its
    lines are too long for a table cell."""
    lines = [
        f"| pool | size | GPU | nodes | GPUs/node | max pods | per node ({NVIDIA_PREFIX}) | total |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {c.pool} | {c.size} | {c.gpu} | {c.nodes} | {c.gpus_per_node} | {_max_pods(c)} | {_short_per_node(c)} | "
        f"{_short_resources(c.total)} |"
        for c in capacity
    ]
    if inputs:
        lines += ["", "Capacity inputs:", ""] + [f"- **{pool.pool}**: {pool.line()}" for pool in inputs]
    return lines + [f"\n> warning: {warning}" for warning in warnings]


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
    for pool in (pool for pool in diff.pools if pool.change != "unchanged"):
        lines.append(f"  {_pool_change(pool)}")
        lines += [f"    run: {step}" for step in _steps(pool)]
    lines.append(f"  total: nodes {diff.nodes}, GPUs {diff.gpus}; {_changes(diff.resources)}")
    return lines


def markdown_headline(diff: CapacityDiff) -> str:
    """The headline with a warning sign when capacity goes away or offline."""
    marker = ":warning: " if diff.removes_capacity or diff.takes_capacity_offline else ""
    return f"{marker}{diff.headline()}"


def _short_how(pool: PoolDiff) -> str:
    """The change in a few words for a table cell; the whole story goes in the list under the table."""
    if pool.replacement is not None:
        return f"replaced, {pool.replacement.order}" + (" (OFFLINE)" if pool.outage else "")
    if pool.outage:
        return f"{pool.change} (OFFLINE)"
    return pool.change


def markdown_diff(diff: CapacityDiff) -> list[str]:
    """The diff for a pull request comment: the headline, a row per pool, a row per usable resource that changes,
    and how each replaced or offline pool goes."""
    lines = [f"**{markdown_headline(diff)}**", "", "| pool | change | nodes | GPUs |", "|---|---|---|---|"]
    for pool in diff.pools:
        lines.append(f"| {pool.pool} | {_short_how(pool)} | {pool.nodes} | {pool.gpus} |")
    lines.append(f"| **total** | | {diff.nodes} | {diff.gpus} |")
    changed = [(pool.pool, name, n) for pool in diff.pools for name, n in pool.resources.items() if n.delta]
    if changed:
        lines += ["", f"| pool | usable resource ({NVIDIA_PREFIX}) | before | after |", "|---|---|---|---|"]
        lines += [
            f"| {pool} | {short(name)} | {n.before or 'new'} | {n.after or 'gone'} |" for pool, name, n in changed
        ]
    stories = []
    for pool in (pool for pool in diff.pools if pool.replacement or pool.effect):
        stories.append(f"- **{pool.pool}**: {_how(pool)}")
        steps = _steps(pool)
        stories += ["", "  ```sh", *(f"  {step}" for step in steps), "  ```"] if steps else []
    return lines + ([""] + stories if stories else [])


def _steps(pool: PoolDiff) -> tuple[str, ...]:
    """The commands an in-place change needs around ``pulumi up`` (a live MIG re-cut's drain), in order."""
    return pool.effect.steps if pool.effect else ()
