"""What a pool's reservation holds (``reservedInstances``, ``reservedDays``) against the nodes the pool may run.

A reservation is billed for what it reserves (domain/cost.py), so its quantity is what prices the pool; beyond it,
EC2 refuses launches into a targeted reservation or a Capacity Block ("Capacity Blocks for ML" in the EKS user
guide: instances above the block's count fail to launch), while Azure lets a pool overallocate a capacity
reservation group, without the capacity SLA (capacity-reservation-overallocate).
"""

from __future__ import annotations

from typing import Callable

from ..config.errors import Findings, Problem
from ..config.models import GpuPoolConfig

Path = Callable[..., str]


def reservation_findings(
    pool: GpuPoolConfig, path: Path, key: str, reserved: bool, launches_beyond: bool, block: bool
) -> Findings:
    """``key`` names the pool's reservation field; ``reserved``: it is set; ``launches_beyond``: the cloud runs
    nodes above the reserved quantity (Azure) rather than failing them (EC2); ``block``: a Capacity Block."""
    problems: list[Problem] = []
    warnings: list[str] = []
    instances, days = pool.reserved_instances, pool.reserved_days
    if not reserved:
        given = [name for name, value in (("instances", instances), ("days", days)) if value is not None]
        return Findings([Problem(path(key), f"{given[0]} is set but the pool names no reservation")] if given else [])
    if days is not None and not block:
        problems.append(Problem(path(key), "days applies to a Capacity Block only (capacityType CAPACITY_BLOCK)"))
    most = pool.autoscaling.max_count if pool.autoscaling else pool.count
    field = "autoscaling.maxCount" if pool.autoscaling else "count"
    if pool.max_count is not None:  # a pool whose nodes come with pending pods, up to its limit (Karpenter)
        most, field = pool.max_count, "maxCount"
    if instances is not None and most > instances:
        if launches_beyond:
            warnings.append(
                f"pool {pool.name}: {field} {most} is above the {instances} reserved instances; Azure runs the "
                "extra nodes at pay-as-you-go rates without the reservation's capacity guarantee"
            )
        else:
            problems.append(
                Problem(
                    path(*field.split(".")),
                    f"{field} {most} is above the {instances} instances the reservation holds: EC2 fails launches "
                    "beyond a Capacity Block's or targeted reservation's count; lower it or reserve more",
                )
            )
    return Findings(problems, warnings)


__all__ = ["reservation_findings"]
