"""The daemonset placement check as a config rule, and each AKS pool's maxPods sized from what lands on it.

Runs after every other rule, over the very chart values the program installs (the installer's chart and the
charts beside it, such as dcgm-exporter next to the device plugin), so ``check``, ``plan`` and ``pulumi up``
all refuse a stack whose NVIDIA daemonsets would miss a pool (or land where they must not), and every pod
they land on a node counts against its maxPods.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.clouds import AKS_MIN_POOL_PODS, AKS_SYSTEM_DAEMONSET_PODS
from ..charts.values import addon_chart_values, chart_values
from ..config.errors import Findings, Problem, field_path
from ..domain.capacity import (
    advertised_resources,
    default_max_pods,
    fewest_nodes,
    min_max_pods,
    physical_resources,
    pod_room,
    usable_resources,
)
from ..domain.pools import ResolvedPool
from ..domain.stack import PLAIN_POD, Placement, Stack
from .scheduling import placements


@dataclass(frozen=True)
class PoolSizing:
    """What the placement check decides for one pool: its AKS maxPods (None on EKS) and daemonset pods per node."""

    max_pods: int | None
    daemonset_pods: int


@dataclass
class PlacementResult:
    """The placement rows (the plan shows them), each pool's sizing by name, and what the check found."""

    rows: list[Placement]
    sizing: dict[str, PoolSizing] = field(default_factory=dict)
    findings: Findings = field(default_factory=Findings)


def place_daemonsets(stack: Stack) -> PlacementResult:
    """Run the placement check over the chart values; size each AKS pool's maxPods from what lands on it."""
    rows = placements(stack, chart_values(stack), addon_chart_values(stack))
    result = PlacementResult(rows)
    problems, warnings = result.findings.problems, result.findings.warnings
    problems += [Problem(field_path("gpuSoftware"), row.problem) for row in rows if not row.ok]
    if problems:
        return result
    landing: dict[str, int] = {}
    for row in rows:
        if row.daemonset != PLAIN_POD and row.schedules:
            landing[row.pool] = landing.get(row.pool, 0) + 1
    for pool in stack.pools:
        if "maxPods" not in cloud_named(pool.cloud).pool_keys:  # pods per node are the cloud's, not sized here
            result.sizing[pool.name] = PoolSizing(pool.max_pods, landing.get(pool.name, 0))
            continue
        daemonsets = landing.get(pool.name, 0) + AKS_SYSTEM_DAEMONSET_PODS
        advertised = advertised_resources(pool)
        slices = sum(advertised.values())
        fewest = fewest_nodes(pool)
        physical = sum(physical_resources(pool).values())
        max_pods = pool.config.max_pods or default_max_pods(physical, daemonsets, fewest)
        room = pod_room(max_pods, daemonsets)
        if max_pods < min_max_pods(fewest):
            problems.append(
                Problem(
                    _pool_path(stack, pool, "maxPods"),
                    f"{max_pods} x {fewest} node(s) is under AKS's {AKS_MIN_POOL_PODS} pods per node "
                    f'pool ("each node pool has space for a minimum of 30 pods"); '
                    f"allowed: {min_max_pods(fewest)}..250",
                )
            )
        elif room == 0:
            problems.append(
                Problem(
                    _pool_path(stack, pool, "maxPods"),
                    f"{max_pods} leaves no room for GPU pods: {daemonsets} daemonset pods run on each "
                    f"node; allowed: {daemonsets + 1}..250",
                )
            )
        elif sum(usable_resources(advertised, room).values()) < slices:
            warnings.append(
                f"pool {pool.name}: maxPods {max_pods} leaves room for {room} GPU pods per node "
                f"({daemonsets} daemonset pods), fewer than its {slices} advertised slices; "
                "the capacity table shows the usable share"
            )
        result.sizing[pool.name] = PoolSizing(max_pods, daemonsets)
    return result


def _pool_path(stack: Stack, pool: ResolvedPool, key: str) -> str:
    index = next(i for i, p in enumerate(stack.config.gpu_pools) if p is not None and p.name == pool.name)
    return field_path("gpuPools", index, key)
