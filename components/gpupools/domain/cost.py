"""What a stack costs: each pool's list price per node-hour times its nodes, per month at 730 hours, and per
usable slice.

A slice's price is the node's price over the slices pods can use at once (``PoolCapacity.per_node``): time-slicing
replicas count, slices that ``maxPods`` leaves unusable do not. When a node advertises several resources (MIG
``mixed``), the node's price is shared by compute: a ``mig-3g.*`` device weighs 3, a ``mig-1g.*`` 1, a GPU a
per-GPU layout leaves whole its GPU's compute slices (7 on an A100), anything else 1. A pool without a price
(size, region or capacity type missing from the price book) has ``None`` figures and a note saying why: never 0.

A pool on a reservation (an EC2 On-Demand Capacity Reservation, a Capacity Block, an Azure capacity reservation
group) is billed for what is reserved, whether nodes run or not ("Capacity Reservations are charged at the
equivalent On-Demand rate whether you run instances in reserved capacity or not"; Azure: "you start getting billed
for 10 D2s_v3 VMs, even if the reservation isn't being used"), and a Capacity Block up front for its whole length.
So such a pool is priced by its reserved instances (and a block by its days), never by its running nodes; without
the quantity it is "billed by the reservation, not priced", never $0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.kubernetes_versions import SupportFee
from ..catalog.prices import PriceBook
from .capacity import PoolCapacity
from .pools import ResolvedPool
from .stack import Stack
from .support_fees import support_fees

HOURS_PER_MONTH = 730
CAPACITY_BLOCK_NOTE = "Capacity Block prices are set at purchase and are not in the price list"
CAPACITY_BLOCK_RATE_NOTE = (
    "the Capacity Block rate AWS's pricing page showed on {date}; a block is paid up front at "
    "the rate of the day it is bought, for its whole length"
)
RESERVATION_NOTE = (
    "billed by the {kind}, not priced: it is charged for what it reserves, used or not; give its {what} "
    "({form}) to price it"
)
RESERVED_NOTE = "billed by the {kind}: its reserved instances, used or not, not the running nodes"
_COMPUTE_SLICES = re.compile(r"mig-(\d+)g\.")


@dataclass(frozen=True)
class Reservation:
    """What a pool's reservation holds: ``instances`` (None: not given) and, for a Capacity Block, ``days``."""

    kind: str  # "capacity reservation", "Capacity Block" or "capacity reservation group"
    instances: int | None
    days: int | None = None
    block: bool = False

    @property
    def priced(self) -> bool:
        """The quantity is known (and a block's length): the pool has a price."""
        return self.instances is not None and (self.days is not None or not self.block)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "instances": self.instances, "days": self.days}


@dataclass(frozen=True)
class PoolCost:
    """One pool's list price: per node-hour (None when unknown), its nodes, and where the price came from."""

    pool: str
    size: str
    region: str | None
    capacity: str  # onDemand, spot or capacityBlock
    nodes: int
    node_hourly: float | None
    slices: dict[str, int]
    min_nodes: int | None = None
    max_nodes: int | None = None
    source: str | None = None
    retrieved: str | None = None
    note: str | None = None
    reservation: Reservation | None = None  # billed by what it reserves, not by running nodes
    # What a whole GPU weighs beside MIG devices (a per-GPU layout's whole GPUs): its compute slices.
    whole_gpu_weight: int = 1

    def _billed_nodes(self, nodes: int) -> int | None:
        """How many nodes the bill counts when ``nodes`` run: a reservation's quantity, or more if Azure runs
        extra nodes beyond it; None when a reservation's quantity (or a block's length) is not known."""
        if self.reservation is None:
            return nodes
        return None if not self.reservation.priced else max(nodes, self.reservation.instances or 0)

    @property
    def hourly(self) -> float | None:
        billed = self._billed_nodes(self.nodes)
        return None if self.node_hourly is None or billed is None else self.node_hourly * billed

    @property
    def hours_per_month(self) -> int:
        """A month's hours, or a Capacity Block's whole length when that is shorter."""
        days = self.reservation.days if self.reservation else None
        return min(HOURS_PER_MONTH, 24 * days) if days else HOURS_PER_MONTH

    @property
    def monthly(self) -> float | None:
        return None if self.hourly is None else self.hourly * self.hours_per_month

    @property
    def upfront(self) -> float | None:
        """A Capacity Block's price, paid when it is bought: its instances for its whole length."""
        days = self.reservation.days if self.reservation else None
        return None if self.hourly is None or not days else self.hourly * 24 * days

    @property
    def monthly_range(self) -> tuple[float, float] | None:
        """Autoscaled pools: the month at ``minCount`` and at ``maxCount`` nodes."""
        if self.node_hourly is None or self.min_nodes is None or self.max_nodes is None:
            return None
        low, high = self._billed_nodes(self.min_nodes), self._billed_nodes(self.max_nodes)
        if low is None or high is None:
            return None
        per_node = self.node_hourly * self.hours_per_month
        return per_node * low, per_node * high

    def slice_hourly(self) -> dict[str, float]:
        """Per advertised resource: the price of one usable slice for an hour."""
        if self.node_hourly is None:
            return {}
        weights = {name: _weight(name, self.whole_gpu_weight) for name, count in self.slices.items() if count > 0}
        units = sum(weights[name] * self.slices[name] for name in weights)
        return {name: self.node_hourly * weight / units for name, weight in weights.items()}

    def to_json(self) -> dict[str, Any]:
        low_high = self.monthly_range
        return {
            "pool": self.pool,
            "size": self.size,
            "region": self.region,
            "capacity": self.capacity,
            "nodes": self.nodes,
            "nodeHourly": self.node_hourly,
            "hourly": self.hourly,
            "monthly": self.monthly,
            "monthlyRange": {
                "minNodes": self.min_nodes,
                "maxNodes": self.max_nodes,
                "min": low_high[0],
                "max": low_high[1],
            }
            if low_high
            else None,
            "sliceHourly": self.slice_hourly(),
            "source": self.source,
            "retrieved": self.retrieved,
            "note": self.note,
            "billedBy": "reservation" if self.reservation else "nodes",
            "reservation": self.reservation.to_json() if self.reservation else None,
            "upfront": self.upfront,
        }


@dataclass(frozen=True)
class StackCost:
    """Every pool's cost, the totals of the pools with a price, and the price book they came from."""

    pools: tuple[PoolCost, ...]
    currency: str
    prices_from: str
    fees: tuple[SupportFee, ...] = ()  # per cluster-hour, in USD: long-term Kubernetes support (support_fees)

    @property
    def hourly(self) -> float | None:
        """The pools with a price, and the cluster's fees; None (unknown, never 0) when no pool has one."""
        known = [pool.hourly for pool in self.pools if pool.hourly is not None]
        fees = sum(fee.per_hour for fee in self.fees)
        return sum(known) + fees if known or not self.pools else None

    @property
    def monthly(self) -> float | None:
        """Each priced pool's month (a Capacity Block shorter than a month counts its length)."""
        known = [pool.monthly for pool in self.pools if pool.monthly is not None]
        return sum(known) if known or not self.pools else None

    @property
    def monthly_at_most(self) -> float | None:
        """The month with every priced pool at its most nodes (autoscaling's maxCount, a Karpenter pool's limit);
        None when that is the month itself (no pool has a range)."""
        if self.monthly is None or not any(pool.monthly_range for pool in self.pools):
            return None
        return sum(
            pool.monthly_range[1] if pool.monthly_range else pool.monthly
            for pool in self.pools
            if pool.monthly is not None
        )

    @property
    def unknown(self) -> list[str]:
        return [pool.pool for pool in self.pools if pool.hourly is None]

    def to_json(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "pricesFrom": self.prices_from,
            "hoursPerMonth": HOURS_PER_MONTH,
            "basis": "list prices: no discounts, reservations or savings plans",
            "pools": [pool.to_json() for pool in self.pools],
            **(
                {"fees": [{"what": f.what, "hourly": f.per_hour, "source": f.source} for f in self.fees]}
                if self.fees
                else {}
            ),
            "hourly": self.hourly,
            "monthly": self.monthly,
            **({"monthlyAtMost": self.monthly_at_most} if self.monthly_at_most is not None else {}),
            "unknown": self.unknown,
        }


def _weight(resource: str, whole_gpu: int) -> int:
    match = _COMPUTE_SLICES.search(resource)
    return int(match.group(1)) if match else whole_gpu


def stack_region(stack: Stack) -> str | None:
    """Where the pools run: the AKS cluster's location or the EKS cluster's region (None when not named)."""
    return getattr(stack.config.cluster, cloud_named(stack.cloud).region_field)


def capacity_type(pool: ResolvedPool) -> str:
    config = pool.config
    if config.priority == "Spot" or config.capacity_type == "SPOT":
        return "spot"
    return "capacityBlock" if config.capacity_type == "CAPACITY_BLOCK" else "onDemand"


def pool_cost(pool: ResolvedPool, capacity: PoolCapacity, region: str | None, book: PriceBook) -> PoolCost:
    kind = capacity_type(pool)
    bounds = pool.node_bounds or (None, None)
    price = book.lookup(pool.size.name, region, kind)
    unlisted = book.why_unlisted(pool.size.name, kind)
    reservation = _reservation(pool, kind)
    note = None
    if price is not None and reservation is not None and not reservation.priced:
        form = "{id, instances, days}" if reservation.block else "{id, instances}"
        note = RESERVATION_NOTE.format(kind=reservation.kind, what=_missing(reservation), form=form)
    elif price is not None:
        note = CAPACITY_BLOCK_RATE_NOTE.format(date=price.retrieved) if kind == "capacityBlock" else None
        note = _joined(note, RESERVED_NOTE.format(kind=reservation.kind) if reservation else None)
    elif unlisted is not None:
        note = f"{unlisted.why}; source: {unlisted.source}"
    elif kind == "capacityBlock":
        note = CAPACITY_BLOCK_NOTE
    elif kind == "spot" and cloud_named(pool.cloud).spot_price_note:
        note = cloud_named(pool.cloud).spot_price_note
    elif region is None:
        note = "the stack names no region (cluster location), so no price applies"
    else:
        note = (
            f"no {kind} price for {pool.size.name} in {region} in the price book; "
            f"`gpupools prices refresh --cloud {pool.cloud} --region {region}` fetches it"
        )
    return PoolCost(
        pool.name,
        pool.size.name,
        region,
        kind,
        capacity.nodes,
        price.per_hour if price else None,
        dict(capacity.per_node),
        *bounds,
        price.source if price else None,
        price.retrieved if price else None,
        note,
        reservation,
        pool.gpu.compute_slices if pool.mig is not None and pool.mig.node.whole_gpus else 1,
    )


def _reservation(pool: ResolvedPool, kind: str) -> Reservation | None:
    config = pool.config
    if config.reservation is None:
        return None
    block = kind == "capacityBlock"
    group = config.capacity_reservation_group_id is not None or config.reservation.startswith("arn:")
    name = "Capacity Block" if block else "capacity reservation group" if group else "capacity reservation"
    return Reservation(name, config.reserved_instances, config.reserved_days, block)


def _missing(reservation: Reservation) -> str:
    if reservation.instances is None:
        return "instances" + (" and days" if reservation.block and reservation.days is None else "")
    return "days"


def _joined(*notes: str | None) -> str | None:
    return "; ".join(note for note in notes if note) or None


def stack_cost(stack: Stack, capacities: list[PoolCapacity], book: PriceBook) -> StackCost:
    region = stack_region(stack)
    by_name = {capacity.pool: capacity for capacity in capacities}
    pools = tuple(pool_cost(pool, by_name[pool.name], region, book) for pool in stack.pools)
    return StackCost(
        pools,
        book.currency,
        book.origin if book.origin != "snapshot" else f"the packaged snapshot ({book.retrieved})",
        support_fees(stack) if book.currency == "USD" else (),  # the fees are USD list prices
    )
