"""What a change costs: the ``cost`` of two plan JSON documents, pool by pool, with the capacity diff's replacements.

A pool missing on one side costs 0 there; a pool on a side without a price (or a base plan made before plans had
a cost, or priced in another currency) makes the change's cost unknown rather than a wrong figure. A pool replaced
create-first (``surge``, as ``Replacement.order`` says) runs both generations for a while: its temporary price per
hour is the old pool's plus the new one's; a delete-first replacement has no such overlap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..catalog.prices import CURRENCY
from .base import MAX_PRICE
from .diff import BeforeAfter, CapacityDiff


Figure = BeforeAfter[float]  # an amount in the diff's currency


@dataclass(frozen=True)
class PoolCostDiff:
    pool: str
    monthly: Figure
    slice_hourly: dict[str, tuple[float | None, float | None]]  # None: the resource is new, or gone
    surge_hourly: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "monthly": self.monthly.to_json(),
            "surgeHourly": self.surge_hourly,
            "sliceHourly": {name: {"before": b, "after": a} for name, (b, a) in self.slice_hourly.items()},
        }


@dataclass(frozen=True)
class CostDiff:
    pools: tuple[PoolCostDiff, ...]
    monthly: Figure
    unknown: tuple[str, ...]  # pools (or "base plan") whose price is not known on a side
    currency: str = CURRENCY
    # Why no pool of the stack can have a price ("no region"): said once, instead of every pool as unknown.
    unpriced: str | None = None
    # The month at every pool's most nodes (Karpenter pools run 0 nodes at rest), when a side has such pools.
    ceiling: Figure | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            **({"unpriced": self.unpriced} if self.unpriced else {}),
            "pools": [pool.to_json() for pool in self.pools],
            "monthly": self.monthly.to_json(),
            "unknown": list(self.unknown),
            **({"monthlyAtMost": self.ceiling.to_json()} if self.ceiling else {}),
        }


def cost_diff(base: Mapping[str, Any], head: Mapping[str, Any], capacity: CapacityDiff) -> CostDiff:
    """Each pool's monthly list price before and after, the slice prices that change, and surge overlaps."""
    before, after = _pools(base), _pools(head)
    if after and all(pool.get("region") is None for pool in after.values()):  # the stack names no region
        return CostDiff((), Figure(0.0, 0.0), (), _currency(head), unpriced="no region")
    priced = isinstance(base.get("cost"), Mapping)
    unknown = [] if priced or not base.get("capacity") else ["base plan (made without prices)"]
    currency, base_currency = _currency(head), _currency(base)
    if priced and base_currency != currency:  # two currencies never add up
        return CostDiff(
            (), Figure(0.0, 0.0), (f"base plan (priced in {base_currency}, this one in {currency})",), currency
        )
    pools = []
    for change in capacity.pools:
        old, new = before.get(change.pool), after.get(change.pool)
        missing = [
            side
            for side in (old, new)
            if side is not None and (side.get("monthly") is None or side.get("hourly") is None)
        ]
        if missing:
            unknown.append(change.pool)
            continue
        surge = None
        # Both generations run at once only when the replacement creates first (domain.rotation.replacement_order).
        if change.replacement and change.replacement.order == "create-first" and old and new:
            surge = old["hourly"] + new["hourly"]
        slices = _slice_changes(old, new)
        pools.append(PoolCostDiff(change.pool, Figure(_monthly(old), _monthly(new)), slices, surge))
    total = Figure(sum(p.monthly.before for p in pools), sum(p.monthly.after for p in pools))
    most_before, most_after = _at_most(base), _at_most(head)
    ceiling = None
    if most_before is not None or most_after is not None:
        ceiling = Figure(
            total.before if most_before is None else most_before, total.after if most_after is None else most_after
        )
    return CostDiff(tuple(pools), total, tuple(unknown), currency, ceiling=ceiling)


def _at_most(plan: Mapping[str, Any]) -> float | None:
    """A plan's month at every pool's most nodes (``cost.monthlyAtMost``), when it has pools that scale from 0."""
    cost = plan.get("cost")
    value = cost.get("monthlyAtMost") if isinstance(cost, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < MAX_PRICE:
        return None
    return float(value)


def _currency(plan: Mapping[str, Any]) -> str:
    cost = plan.get("cost")
    currency = cost.get("currency") if isinstance(cost, Mapping) else None
    return currency if isinstance(currency, str) else CURRENCY


def _pools(plan: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    cost = plan.get("cost")
    return {pool["pool"]: pool for pool in cost.get("pools", [])} if isinstance(cost, Mapping) else {}


def _monthly(pool: Mapping[str, Any] | None) -> float:
    return float(pool["monthly"]) if pool else 0.0


def _slice_changes(
    old: Mapping[str, Any] | None, new: Mapping[str, Any] | None
) -> dict[str, tuple[float | None, float | None]]:
    """Slice prices of resources on both sides, and those that appear (None before) or go (None after)."""
    b, a = (old or {}).get("sliceHourly", {}), (new or {}).get("sliceHourly", {})
    return {name: (_price(b.get(name)), _price(a.get(name))) for name in sorted({*b, *a})}


def _price(value: Any) -> float | None:
    return None if value is None else float(value)
