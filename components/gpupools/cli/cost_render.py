"""Text and Markdown for what a stack costs and what a change costs (``plan`` and ``plan --base``)."""

from __future__ import annotations

from ..catalog.prices import CURRENCY
from ..domain.cost import HOURS_PER_MONTH, PoolCost, StackCost
from ..plan.cost_diff import CostDiff

UNKNOWN = "unknown"


def money(value: float | None, places: int = 2, currency: str = CURRENCY) -> str:
    """``$1,234.56`` in USD, ``1,234.56 EUR`` in another currency, or ``unknown``."""
    if value is None:
        return UNKNOWN
    return f"${value:,.{places}f}" if currency == CURRENCY else f"{value:,.{places}f} {currency}"


def basis(cost: StackCost) -> str:
    """Said once per plan: what the figures are and are not."""
    return (
        f"List prices in {cost.currency} from {cost.prices_from}: no discounts, reservations or savings plans; "
        f'a month is {HOURS_PER_MONTH} h; a size or region without a price shows "{UNKNOWN}".'
    )


def _capacity(pool: PoolCost) -> str:
    return {"onDemand": "on-demand", "spot": "Spot", "capacityBlock": "Capacity Block"}[pool.capacity]


def _pool_figures(pool: PoolCost, currency: str) -> str:
    if pool.node_hourly is None:
        return f"{UNKNOWN} ({pool.note})"

    def cash(value: float | None, places: int = 2) -> str:
        return money(value, places, currency)

    nodes = f"{pool.nodes} node{'s' if pool.nodes != 1 else ''}"
    text = f"{cash(pool.node_hourly)}/h per node, {cash(pool.hourly)}/h for {nodes}, {cash(pool.monthly)}/month"
    if pool.monthly_range:
        low, high = pool.monthly_range
        text += f" ({pool.min_nodes}..{pool.max_nodes} nodes: {cash(low)}..{cash(high)}/month)"
    slices = ", ".join(f"{name} {cash(price, 4)}/slice-h" for name, price in pool.slice_hourly().items())
    caveat = f"; {pool.note}" if pool.note else ""
    return f"{text}; {slices or 'no usable slices'}; price: {pool.source} (retrieved {pool.retrieved}){caveat}"


def cost_lines(cost: StackCost) -> list[str]:
    lines = [f"  {basis(cost)}"]
    lines += [
        f"  pool {p.pool} ({p.size}, {p.region or 'no region'}, {_capacity(p)}): {_pool_figures(p, cost.currency)}"
        for p in cost.pools
    ]
    lines += [
        f"  cluster: {fee.what}: {money(fee.per_hour, 2, cost.currency)}/h; price: {fee.source}" for fee in cost.fees
    ]
    missing = f" (without {', '.join(cost.unknown)}: {UNKNOWN})" if cost.unknown and cost.hourly is not None else ""
    if cost.hourly is None:
        return lines + [f"  total: {UNKNOWN}"]
    return lines + [
        f"  total: {money(cost.hourly, 2, cost.currency)}/h, {money(cost.monthly, 2, cost.currency)}/month{missing}"
    ]


def markdown_cost(cost: StackCost) -> list[str]:
    unit = "$" if cost.currency == CURRENCY else cost.currency
    lines = [
        f"_{basis(cost)}_",
        "",
        f"| pool | size | region | capacity | {unit}/h per node | {unit}/h | "
        f"{unit}/month | {unit}/slice-h | price from |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def cash(value: float | None, places: int = 2) -> str:
        return money(value, places, cost.currency)

    for p in cost.pools:
        slices = ", ".join(f"{name} {cash(price, 4)}" for name, price in p.slice_hourly().items()) or "-"
        source = f"{p.source} ({p.retrieved}){'; ' + p.note if p.note else ''}" if p.source else p.note
        month = cash(p.monthly) + (
            f" ({cash(p.monthly_range[0])}..{cash(p.monthly_range[1])})" if p.monthly_range else ""
        )
        lines.append(
            f"| {p.pool} | {p.size} | {p.region or '-'} | {_capacity(p)} | {cash(p.node_hourly)} | "
            f"{cash(p.hourly)} | {month} | {slices} | {source} |"
        )
    lines += [
        f"| cluster | {fee.what} | | | | {cash(fee.per_hour)} | {cash(fee.per_hour * HOURS_PER_MONTH)} | | "
        f"{fee.source} |"
        for fee in cost.fees
    ]
    missing = f" (without {', '.join(cost.unknown)})" if cost.unknown and cost.hourly is not None else ""
    return lines + [f"| **total**{missing} | | | | | {cash(cost.hourly)} | {cash(cost.monthly)} | | |"]


def cost_headline(diff: CostDiff) -> str:
    """``adds $X/month`` or ``saves $X/month`` (or why it cannot say): beside the capacity headline."""
    if diff.unknown:
        return f"cost change unknown (no price for {', '.join(diff.unknown)})"
    delta = diff.monthly.delta
    if abs(delta) < 0.005:
        return "no change in list price"
    return f"{'adds' if delta > 0 else 'saves'} {money(abs(delta), 2, diff.currency)}/month"


def cost_diff_lines(diff: CostDiff) -> list[str]:
    lines = []
    for pool in diff.pools:
        if pool.monthly.delta or pool.surge_hourly:
            lines.append(
                f"  cost {pool.pool}: {_before_after(pool.monthly, diff.currency)}/month"
                f"{_slices(pool, diff.currency)}{_surge(pool, diff.currency)}"
            )
    if diff.unknown and not diff.pools:
        return lines + [f"  cost total: {UNKNOWN} ({', '.join(diff.unknown)})"]
    lines.append(f"  cost total: {_before_after(diff.monthly, diff.currency)}/month")
    return lines


def markdown_cost_diff(diff: CostDiff) -> list[str]:
    lines = ["", "| pool | $/month | $/slice-h | while both generations exist |", "|---|---|---|---|"]
    for pool in diff.pools:
        slices = _slices(pool, diff.currency).removeprefix("; ") or "-"
        surge = f"{money(pool.surge_hourly, 2, diff.currency)}/h" if pool.surge_hourly else "-"
        lines.append(f"| {pool.pool} | {_before_after(pool.monthly, diff.currency)} | {slices} | {surge} |")
    total = UNKNOWN if diff.unknown and not diff.pools else _before_after(diff.monthly, diff.currency)
    return lines + [f"| **total** | {total} | | |"]


def _before_after(figure, currency: str) -> str:
    if figure.before == figure.after:
        return money(figure.after, 2, currency)
    return f"{money(figure.before, 2, currency)} → {money(figure.after, 2, currency)}"


def _slices(pool, currency: str) -> str:
    changed = [
        f"{name} {money(b, 4, currency)} → {money(a, 4, currency)}/slice-h"
        for name, (b, a) in pool.slice_hourly.items()
        if b != a
    ]
    return f"; {', '.join(changed)}" if changed else ""


def _surge(pool, currency: str) -> str:
    if not pool.surge_hourly:
        return ""
    return f"; surge: {money(pool.surge_hourly, 2, currency)}/h while both generations exist"
