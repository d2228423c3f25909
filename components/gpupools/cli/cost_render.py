"""Text and Markdown for what a stack costs and what a change costs (``plan`` and ``plan --base``)."""

from __future__ import annotations

from ..domain.cost import HOURS_PER_MONTH, PoolCost, StackCost
from ..plan.cost_diff import CostDiff

UNKNOWN = "unknown"


def money(value: float | None, places: int = 2) -> str:
    return UNKNOWN if value is None else f"${value:,.{places}f}"


def basis(cost: StackCost) -> str:
    """Said once per plan: what the figures are and are not."""
    return (f"List prices in {cost.currency} from {cost.prices_from}: no discounts, reservations or savings plans; "
            f"a month is {HOURS_PER_MONTH} h; a size or region without a price shows \"{UNKNOWN}\".")


def _capacity(pool: PoolCost) -> str:
    return {"onDemand": "on-demand", "spot": "Spot", "capacityBlock": "Capacity Block"}[pool.capacity]


def _pool_figures(pool: PoolCost) -> str:
    if pool.node_hourly is None:
        return f"{UNKNOWN} ({pool.note})"
    nodes = f"{pool.nodes} node{'s' if pool.nodes != 1 else ''}"
    text = f"{money(pool.node_hourly)}/h per node, {money(pool.hourly)}/h for {nodes}, {money(pool.monthly)}/month"
    if pool.monthly_range:
        low, high = pool.monthly_range
        text += f" ({pool.min_nodes}..{pool.max_nodes} nodes: {money(low)}..{money(high)}/month)"
    slices = ", ".join(f"{name} {money(price, 4)}/slice-h" for name, price in pool.slice_hourly().items())
    caveat = f"; {pool.note}" if pool.note else ""
    return f"{text}; {slices or 'no usable slices'}; price: {pool.source} (retrieved {pool.retrieved}){caveat}"


def cost_lines(cost: StackCost) -> list[str]:
    lines = [f"  {basis(cost)}"]
    lines += [f"  pool {p.pool} ({p.size}, {p.region or 'no region'}, {_capacity(p)}): {_pool_figures(p)}"
              for p in cost.pools]
    missing = f" (without {', '.join(cost.unknown)}: {UNKNOWN})" if cost.unknown and cost.hourly is not None else ""
    if cost.hourly is None:
        return lines + [f"  total: {UNKNOWN}"]
    return lines + [f"  total: {money(cost.hourly)}/h, {money(cost.monthly)}/month{missing}"]


def markdown_cost(cost: StackCost) -> list[str]:
    lines = [f"_{basis(cost)}_", "", "| pool | size | region | capacity | $/h per node | $/h | $/month | $/slice-h |"
             " price from |", "|---|---|---|---|---|---|---|---|---|"]
    for p in cost.pools:
        slices = ", ".join(f"{name} {money(price, 4)}" for name, price in p.slice_hourly().items()) or "-"
        source = f"{p.source} ({p.retrieved}){'; ' + p.note if p.note else ''}" if p.source else p.note
        month = money(p.monthly) + (f" ({money(p.monthly_range[0])}..{money(p.monthly_range[1])})"
                                    if p.monthly_range else "")
        lines.append(f"| {p.pool} | {p.size} | {p.region or '-'} | {_capacity(p)} | {money(p.node_hourly)} | "
                     f"{money(p.hourly)} | {month} | {slices} | {source} |")
    missing = f" (without {', '.join(cost.unknown)})" if cost.unknown and cost.hourly is not None else ""
    return lines + [f"| **total**{missing} | | | | | {money(cost.hourly)} | {money(cost.monthly)} | | |"]


def cost_headline(diff: CostDiff) -> str:
    """``adds $X/month`` or ``saves $X/month`` (or why it cannot say): beside the capacity headline."""
    if diff.unknown:
        return f"cost change unknown (no price for {', '.join(diff.unknown)})"
    delta = diff.monthly.delta
    if abs(delta) < 0.005:
        return "no change in list price"
    return f"{'adds' if delta > 0 else 'saves'} {money(abs(delta))}/month"


def cost_diff_lines(diff: CostDiff) -> list[str]:
    lines = []
    for pool in diff.pools:
        if pool.monthly.delta or pool.surge_hourly:
            lines.append(f"  cost {pool.pool}: {_before_after(pool.monthly)}/month{_slices(pool)}{_surge(pool)}")
    lines.append(f"  cost total: {_before_after(diff.monthly)}/month")
    return lines


def markdown_cost_diff(diff: CostDiff) -> list[str]:
    lines = ["", "| pool | $/month | $/slice-h | while both generations exist |", "|---|---|---|---|"]
    for pool in diff.pools:
        slices = _slices(pool).removeprefix("; ") or "-"
        surge = f"{money(pool.surge_hourly)}/h" if pool.surge_hourly else "-"
        lines.append(f"| {pool.pool} | {_before_after(pool.monthly)} | {slices} | {surge} |")
    return lines + [f"| **total** | {_before_after(diff.monthly)} | | |"]


def _before_after(figure) -> str:
    if figure.before == figure.after:
        return money(figure.after)
    return f"{money(figure.before)} → {money(figure.after)}"


def _slices(pool) -> str:
    changed = [f"{name} {money(b, 4)} → {money(a, 4)}/slice-h" for name, (b, a) in pool.slice_hourly.items()
               if b != a]
    return f"; {', '.join(changed)}" if changed else ""


def _surge(pool) -> str:
    if not pool.surge_hourly:
        return ""
    return f"; surge: {money(pool.surge_hourly)}/h while both generations exist"
