"""Text and Markdown for what a stack costs and what a change costs (``plan`` and ``plan --base``)."""

from __future__ import annotations

from ..catalog.prices import CURRENCY
from ..domain.cost import HOURS_PER_MONTH, PoolCost, StackCost
from ..plan.cost_diff import CostDiff
from .markdown_parts import NVIDIA_PREFIX, short, source_link

UNKNOWN = "unknown"
RESERVED_UNPRICED = "billed by the reservation, not priced"


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
    held = pool.reservation
    if held is not None and pool.hourly is None:
        return f"{cash(pool.node_hourly)}/h per node; {pool.note}; price: {pool.source} (retrieved {pool.retrieved})"
    if held is not None:
        nodes = f"{held.instances} reserved instance{'s' if held.instances != 1 else ''}"
    text = f"{cash(pool.node_hourly)}/h per node, {cash(pool.hourly)}/h for {nodes}, {cash(pool.monthly)}/month"
    if pool.upfront is not None and held is not None:
        text += f" ({cash(pool.upfront)} up front for {held.days} days)"
    if pool.monthly_range and pool.monthly_range[0] != pool.monthly_range[1]:
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
        f"  {total_label(cost)} ({_not_counted(cost)}): {money(cost.hourly, 2, cost.currency)}/h, "
        f"{money(cost.monthly, 2, cost.currency)}/month{missing}"
    ]


def _not_counted(cost: StackCost) -> str:
    return "not the system pool" if cost.fees else "not the system pool or the cluster"


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

    notes = []
    for p in cost.pools:
        slices = ", ".join(f"{short(name)} {cash(price, 4)}" for name, price in p.slice_hourly().items()) or "-"
        source = f"{source_link(p.source)} ({p.retrieved})" if p.source else "-"
        notes += [f"- **{p.pool}**: {p.note}"] if p.note else []
        month = cash(p.monthly) + (
            f" ({cash(p.monthly_range[0])}..{cash(p.monthly_range[1])})" if p.monthly_range else ""
        )
        hourly = RESERVED_UNPRICED if p.reservation and p.hourly is None else cash(p.hourly)
        month = RESERVED_UNPRICED if p.reservation and p.monthly is None else month
        lines.append(
            f"| {p.pool} | {p.size} | {p.region or '-'} | {_capacity(p)} | {cash(p.node_hourly)} | "
            f"{hourly} | {month} | {slices} | {source} |"
        )
    lines += [
        f"| cluster | {fee.what} | | | | {cash(fee.per_hour)} | {cash(fee.per_hour * HOURS_PER_MONTH)} | | "
        f"{fee.source} |"
        for fee in cost.fees
    ]
    missing = f" (without {', '.join(cost.unknown)})" if cost.unknown and cost.hourly is not None else ""
    total = f"| **{total_label(cost)}**{missing} | | | | | {cash(cost.hourly)} | {cash(cost.monthly)} | | |"
    return lines + [total] + ([""] + notes if notes else [])


def total_label(cost: StackCost) -> str:
    """What "total" counts: the GPU pools with a price, and the cluster's fees (the system pool is not priced)."""
    priced = [pool.pool for pool in cost.pools if pool.hourly is not None]
    parts = [f"GPU pools {', '.join(priced)}" if len(priced) < 4 else f"{len(priced)} GPU pools"] if priced else []
    parts += ["the cluster's fees"] if cost.fees else []
    return f"total: {' and '.join(parts)}" if parts else "total"


def cost_headline(diff: CostDiff) -> str:
    """``adds $X/month`` or ``saves $X/month`` (or why it cannot say): beside the capacity headline."""
    if diff.unpriced:
        return f"unpriced: {diff.unpriced}"
    if diff.unknown:
        return f"cost change unknown (no price for {', '.join(diff.unknown)})"
    delta = diff.monthly.delta
    if abs(delta) < 0.005:
        return "no change in list price"
    return f"{'adds' if delta > 0 else 'saves'} {money(abs(delta), 2, diff.currency)}/month"


def cost_diff_lines(diff: CostDiff) -> list[str]:
    if diff.unpriced:  # the headline says so, once
        return []
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
    """Per pool the month before and after and the hourly price while both generations exist; then a row per slice
    price that changes, "new" or "gone" where a resource appears or goes."""
    if diff.unpriced:  # the heading says so, once
        return []
    lines = ["", "| pool | $/month | while both generations exist |", "|---|---|---|"]
    for pool in diff.pools:
        surge = f"{money(pool.surge_hourly, 2, diff.currency)}/h" if pool.surge_hourly else "-"
        lines.append(f"| {pool.pool} | {_before_after(pool.monthly, diff.currency)} | {surge} |")
    total = UNKNOWN if diff.unknown and not diff.pools else _before_after(diff.monthly, diff.currency)
    lines.append(f"| **total** (GPU pools) | {total} | |")
    changed = [(pool.pool, name, b, a) for pool in diff.pools for name, (b, a) in pool.slice_hourly.items() if b != a]
    if changed:
        lines += ["", f"| pool | slice ({NVIDIA_PREFIX}) | $/slice-h before | after |", "|---|---|---|---|"]
        lines += [
            f"| {pool} | {short(name)} | {_or(b, 'new', diff.currency)} | {_or(a, 'gone', diff.currency)} |"
            for pool, name, b, a in changed
        ]
    return lines


def _or(value: float | None, word: str, currency: str) -> str:
    return word if value is None else money(value, 4, currency)


def _before_after(figure, currency: str) -> str:
    if figure.before == figure.after:
        return money(figure.after, 2, currency)
    return f"{money(figure.before, 2, currency)} → {money(figure.after, 2, currency)}"


def _slices(pool, currency: str) -> str:
    changed = [
        f"{name} {_or(b, 'new', currency)} → {_or(a, 'gone', currency)}/slice-h"
        for name, (b, a) in pool.slice_hourly.items()
        if b != a
    ]
    return f"; {', '.join(changed)}" if changed else ""


def _surge(pool, currency: str) -> str:
    if not pool.surge_hourly:
        return ""
    return f"; surge: {money(pool.surge_hourly, 2, currency)}/h while both generations exist"
