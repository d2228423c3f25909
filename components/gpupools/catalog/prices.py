"""List prices of node sizes, each with where it came from: the packaged snapshot (``price_snapshot.json``) or a
price book written by ``gpupools prices refresh``, both in one JSON shape.

Prices are list prices per node-hour in the book's one currency (USD, the snapshot's, unless a cache was refreshed
in another): no discounts, reservations or savings plans. A size, region or capacity type without an entry has no
price ("unknown"), never 0; where the cloud publishes no price for a size at all (p5e On-Demand), an ``unlisted``
entry says so with its source, and the plan shows that reason. Capacity Block rates are the ones AWS's Capacity
Blocks pricing page showed on a date: a block is charged the rate of the day it is bought. How the snapshot was
made is in its ``howMade`` field and docs/cost.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import GpupoolsError
from ..untrusted.atomic_file import user_cache_file
from ..untrusted.files import read_packaged
from ..untrusted.strict_json import strict_loads
from ..untrusted.value_kinds import CLOUD, NAME, REGION, SIZE, price_problem

Capacity = Literal["onDemand", "spot", "capacityBlock"]
CAPACITIES: tuple[str, ...] = ("onDemand", "spot", "capacityBlock")
FORMAT = "gpupools-prices/2"  # a price per hour in "perHour", in the book's currency
FORMAT_1 = "gpupools-prices/1"  # earlier caches: "usdPerHour", USD only; still read
CURRENCY = "USD"  # the snapshot's and the default; a cache may hold another (Azure's API answers in several)
CURRENCY_CODE = re.compile(r"[A-Z]{3}")  # ISO 4217
# What a price book's text fields may hold: they reach the terminal and the pull request's Markdown table, so a
# cache someone edited (or a price API that answered oddly) cannot break a cell, add markup or move the cursor.
_FIELD_SHAPES = {
    "cloud": CLOUD.shape,
    "size": SIZE.shape,
    "region": REGION.shape,
    "retrieved": re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?"),
    # printable ASCII but for space " | < > ` \\ [ ]: no cell break, HTML or Markdown link text in a PR comment
    "source": re.compile(r"https://[!#-;=?-Z^_a-{}~]{1,500}"),
    "why": NAME.shape,
}
SNAPSHOT_FILE = "price_snapshot.json"
CACHE_VARIABLE = "GPUPOOLS_PRICE_CACHE"  # a path; the default is $XDG_CACHE_HOME/gpupools/prices.json
# No node costs MAX_PER_HOUR an hour in any currency Azure prices in (a p5 is about 140,000 KRW): a larger number is
# a broken price list, and would make monthly totals overflow to Infinity, which is not JSON (untrusted/value_kinds).


class PriceBookError(GpupoolsError, ValueError):
    """A price book that is not what ``gpupools prices refresh`` writes: one line naming what is wrong."""


@dataclass(frozen=True)
class Price:
    """One node size's list price in one region (in its price book's currency), with the page or API query it came
    from and when."""

    cloud: str
    size: str
    region: str
    capacity: Capacity
    per_hour: float
    source: str
    retrieved: str
    derivation: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = {
            "cloud": self.cloud,
            "size": self.size,
            "region": self.region,
            "capacity": self.capacity,
            "perHour": self.per_hour,
            "source": self.source,
            "retrieved": self.retrieved,
        }
        return {**data, "derivation": self.derivation} if self.derivation else data


@dataclass(frozen=True)
class Unlisted:
    """A size the cloud publishes no price for, for one capacity type in every region, with why and who says so."""

    cloud: str
    size: str
    capacity: Capacity
    why: str
    source: str

    def to_json(self) -> dict[str, Any]:
        return {
            "cloud": self.cloud,
            "size": self.size,
            "capacity": self.capacity,
            "why": self.why,
            "source": self.source,
        }


@dataclass(frozen=True)
class PriceBook:
    """Prices by (size, region, capacity) in one currency; ``origin`` says whether they are the snapshot or a local
    cache."""

    origin: str  # "snapshot" or "cache <path>"
    retrieved: str
    currency: str
    prices: tuple[Price, ...]
    how_made: str = ""
    unlisted: tuple[Unlisted, ...] = ()
    _index: dict[tuple[str, str, str], Price] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update({(p.size, p.region, p.capacity): p for p in self.prices})

    def lookup(self, size: str, region: str | None, capacity: str) -> Price | None:
        return None if region is None else self._index.get((size, region, capacity))

    def why_unlisted(self, size: str, capacity: str) -> Unlisted | None:
        """Why no region has a ``capacity`` price for ``size``, when the cloud publishes none."""
        return next((entry for entry in self.unlisted if (entry.size, entry.capacity) == (size, capacity)), None)

    def to_json(self) -> dict[str, Any]:
        data = {
            "format": FORMAT,
            "currency": self.currency,
            "retrieved": self.retrieved,
            "howMade": self.how_made,
            "prices": [price.to_json() for price in self.prices],
        }
        return {**data, "unlisted": [entry.to_json() for entry in self.unlisted]} if self.unlisted else data


def read_price_book(data: Any, origin: str) -> PriceBook:
    """A price book from its JSON document; raises ``PriceBookError`` naming the first thing wrong."""
    if not isinstance(data, dict) or data.get("format") not in (FORMAT, FORMAT_1):
        raise PriceBookError(f'{origin}: not a gpupools price book (expected "format": "{FORMAT}")')
    currency, retrieved, entries = data.get("currency"), data.get("retrieved"), data.get("prices")
    if data["format"] == FORMAT_1 and currency != CURRENCY:
        raise PriceBookError(f"{origin}: a {FORMAT_1} price book is in {CURRENCY} only, not {currency!r}")
    if not isinstance(currency, str) or not CURRENCY_CODE.fullmatch(currency):
        raise PriceBookError(
            f"{origin}: currency {currency!r} is not an ISO 4217 code (three capital letters, such as {CURRENCY})"
        )
    if not isinstance(retrieved, str) or not isinstance(entries, list):
        raise PriceBookError(f"{origin}: needs 'retrieved' (a date) and a 'prices' list")
    if not _FIELD_SHAPES["retrieved"].fullmatch(retrieved):
        raise PriceBookError(f"{origin}: 'retrieved' {retrieved[:40]!r} is not a date (YYYY-MM-DD or an ISO UTC time)")
    unlisted = data.get("unlisted", [])
    if not isinstance(unlisted, list):
        raise PriceBookError(f"{origin}: 'unlisted' is not a list")
    key = "usdPerHour" if data["format"] == FORMAT_1 else "perHour"
    prices = tuple(_price(entry, origin, i, key) for i, entry in enumerate(entries))
    return PriceBook(
        origin,
        retrieved,
        currency,
        prices,
        str(data.get("howMade", "")),
        tuple(_unlisted(entry, origin, i) for i, entry in enumerate(unlisted)),
    )


def _texts(entry: Any, where: str, keys: tuple[str, ...]) -> dict[str, str]:
    """The entry's non-empty text fields ``keys``, its capacity checked; raises naming what is missing or wrong."""
    if not isinstance(entry, dict):
        raise PriceBookError(f"{where} is not an object")
    texts: dict[str, str] = {key: value for key in keys if isinstance(value := entry.get(key), str) and value}
    missing = [key for key in keys if key not in texts]
    if missing:
        raise PriceBookError(f"{where} lacks {', '.join(missing)}")
    odd = [key for key, value in texts.items() if not _FIELD_SHAPES[key].fullmatch(value)]
    if odd:
        raise PriceBookError(f"{where}: {odd[0]} {texts[odd[0]][:40]!r} is not the shape of a {odd[0]}")
    if entry.get("capacity") not in CAPACITIES:
        raise PriceBookError(f"{where}: capacity {entry.get('capacity')!r}; allowed: {', '.join(CAPACITIES)}")
    return texts


def _price(entry: Any, origin: str, index: int, key: str) -> Price:
    where = f"{origin}: prices[{index}]"
    t = _texts(entry, where, ("cloud", "size", "region", "source", "retrieved"))
    hourly = entry.get(key)
    problem = price_problem(hourly)
    if problem is not None:
        raise PriceBookError(f"{where}: {key} {problem}")
    return Price(
        t["cloud"],
        t["size"],
        t["region"],
        entry["capacity"],
        float(hourly),
        t["source"],
        t["retrieved"],
        entry.get("derivation"),
    )


def _unlisted(entry: Any, origin: str, index: int) -> Unlisted:
    t = _texts(entry, f"{origin}: unlisted[{index}]", ("cloud", "size", "why", "source"))
    return Unlisted(t["cloud"], t["size"], entry["capacity"], t["why"], t["source"])


def price_cache_path() -> Path:
    """Where ``gpupools prices refresh`` writes prices and plans read them first."""
    return user_cache_file(CACHE_VARIABLE, "prices.json")


def snapshot() -> PriceBook:
    """The price book shipped with the package."""
    # Ours, in the wheel: read strictly all the same.
    text = read_packaged(__name__.rpartition(".")[0], SNAPSHOT_FILE)
    return read_price_book(strict_loads(text), "snapshot")


__all__ = [
    "CAPACITIES",
    "CURRENCY",
    "CURRENCY_CODE",
    "Capacity",
    "Price",
    "PriceBook",
    "PriceBookError",
    "Unlisted",
    "read_price_book",
    "snapshot",
]
