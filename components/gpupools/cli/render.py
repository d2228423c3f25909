"""Text and Markdown renderings shared by ``check`` and ``plan``."""

from __future__ import annotations

from ..capacity import PoolCapacity
from ..scheduling import PLAIN_POD, Placement


def _resources(resources: dict[str, int]) -> str:
    return ", ".join(f"{count}x {name}" for name, count in resources.items()) or "-"


def capacity_lines(capacity: list[PoolCapacity], warnings: list[str]) -> list[str]:
    header = ("POOL", "SIZE", "GPU", "NODES", "GPUS/NODE", "PER NODE", "TOTAL")
    rows = [header] + [
        (c.pool, c.size, c.gpu, str(c.nodes), str(c.gpus_per_node), _resources(c.per_node), _resources(c.total))
        for c in capacity
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    return lines + [f"warning: {warning}" for warning in warnings]


def markdown_capacity(capacity: list[PoolCapacity], warnings: list[str]) -> list[str]:
    lines = ["| pool | size | GPU | nodes | GPUs/node | per node | total |", "|---|---|---|---|---|---|---|"]
    lines += [
        f"| {c.pool} | {c.size} | {c.gpu} | {c.nodes} | {c.gpus_per_node} | {_resources(c.per_node)} | {_resources(c.total)} |"
        for c in capacity
    ]
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
