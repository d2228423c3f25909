"""Which regions sell each catalog size: the packaged offers snapshot (``offers_snapshot.json``), read from public
copies of the clouds' price lists (the EC2 offer file via vantage's instances.json; Azure Retail Prices via
SkyPilot's catalog), with each list's source, data date and the regions it covers.

A size the snapshot lists, in a region its list covers, but not sold there is "not offered" where the list may
refuse (``refuses``: a copy with dated data) and its data is at most ``REFUSES_FOR_DAYS`` older than the plan's
date; "not listed" (a warning) otherwise: a size launched since the copy was made is missing from it (the AWS
copy's data is of 2026-01-21; the Azure copy's rows are undated, 2023-2024). Anything the snapshot
cannot answer (a region outside the list's coverage, a size it lacks, a missing or unreadable snapshot) is "not
checked", never a refusal: the copies are older than the clouds' own lists (``docs/sources.md``).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Literal

from ..untrusted.value_kinds import CLOUD, NAME, REGION, SIZE
from .prices import price_cache_path
from ..untrusted.files import read_packaged, read_text
from ..untrusted.strict_json import strict_loads
from ..untrusted.lookup import closest

SNAPSHOT_FILE = "offers_snapshot.json"
CACHE_VARIABLE = "GPUPOOLS_OFFERS_CACHE"  # a path; default $XDG_CACHE_HOME/gpupools/offers.json (prices refresh)
MAX_CACHE_BYTES = 16 << 20
FORMAT = "gpupools-offers/1"
REFUSES_FOR_DAYS = 90  # ours: an offers list older than this on the plan's date only warns
Status = Literal["offered", "not offered", "not listed", "not checked"]


@dataclass(frozen=True)
class Offer:
    """The snapshot's answer for one size in one region; ``nearest`` are regions that do sell it."""

    status: Status
    why: str = ""
    nearest: tuple[str, ...] = ()


@dataclass(frozen=True)
class OfferList:
    """One public copy of one cloud's list: which regions it covers, and per size the regions that sell it."""

    cloud: str
    source: str
    data_date: str
    covers: frozenset[str]
    why: str  # what a region outside ``covers`` means
    sizes: dict[str, tuple[str, ...]]
    refuses: bool = False  # recent enough that a size missing from a covered region is refused


@dataclass(frozen=True)
class OffersSnapshot:
    read: str
    lists: tuple[OfferList, ...]
    unlisted: dict[str, str]
    sources: dict[str, dict[str, str]]
    zones: str


def offers_cache_path() -> Path:
    """Where ``gpupools prices refresh`` writes the offers it read: ``$GPUPOOLS_OFFERS_CACHE``, else ``offers.json``
    beside the price cache (``$GPUPOOLS_PRICE_CACHE``'s folder, else ``$XDG_CACHE_HOME/gpupools``)."""
    explicit = os.environ.get(CACHE_VARIABLE)
    if explicit:
        return Path(explicit)
    return price_cache_path().parent / "offers.json"


def offers_snapshot() -> OffersSnapshot | None:
    """The refreshed cache when there is a readable one, else the packaged snapshot; None when neither can be read
    (then nothing is checked)."""
    return _cached(str(offers_cache_path())) or packaged_offers()


@functools.cache
def _cached(path: str) -> OffersSnapshot | None:
    try:
        return read_offers(strict_loads(read_text(Path(path), "offers cache", MAX_CACHE_BYTES)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # absent or unreadable: the snapshot
        return None


@functools.cache
def packaged_offers() -> OffersSnapshot | None:
    """The packaged snapshot, or None when it is missing or not in its format."""
    try:
        return read_offers(strict_loads(read_packaged(__name__.rpartition(".")[0], SNAPSHOT_FILE)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def snapshot_json(snapshot: OffersSnapshot) -> dict[str, Any]:
    """``snapshot`` in the file's format (what the refresh writes)."""
    return {
        "format": FORMAT,
        "read": snapshot.read,
        "lists": [
            {
                "cloud": item.cloud,
                "source": item.source,
                "dataDate": item.data_date,
                "covers": sorted(item.covers),
                "why": item.why,
                "refuses": item.refuses,
                "sizes": {size: list(regions) for size, regions in sorted(item.sizes.items())},
            }
            for item in snapshot.lists
        ],
        "unlisted": snapshot.unlisted,
        "sources": snapshot.sources,
        "zones": snapshot.zones,
    }


def read_offers(document: Any) -> OffersSnapshot:
    """An offers snapshot from its JSON document, every region, size and name checked for its kind
    (``untrusted.value_kinds``): a ``ValueError`` (``ValueRefused``, ``KeyError`` ...) names the first thing wrong."""
    if document["format"] != FORMAT:
        raise ValueError(f"not {FORMAT}")
    lists = tuple(_offer_list(item, f"lists[{index}]") for index, item in enumerate(document["lists"]))
    return OffersSnapshot(
        NAME.checked(document["read"], "read"),
        lists,
        {SIZE.checked(k, "unlisted"): NAME.checked(v, f"unlisted.{k}") for k, v in document["unlisted"].items()},
        {
            NAME.checked(k, "sources"): {
                NAME.checked(a, f"sources.{k}"): NAME.checked(b, f"sources.{k}.{a}") for a, b in v.items()
            }
            for k, v in document["sources"].items()
        },
        NAME.checked(document["zones"], "zones"),
    )


def _offer_list(item: Any, where: str) -> OfferList:
    sizes = item["sizes"]
    return OfferList(
        CLOUD.checked(item["cloud"], f"{where}.cloud"),
        NAME.checked(item["source"], f"{where}.source"),
        NAME.checked(item["dataDate"], f"{where}.dataDate"),
        frozenset(REGION.checked(region, f"{where}.covers") for region in item["covers"]),
        NAME.checked(item["why"], f"{where}.why"),
        {
            SIZE.checked(size, f"{where}.sizes"): tuple(
                REGION.checked(region, f"{where}.sizes.{size}") for region in regions
            )
            for size, regions in sizes.items()
        },
        item.get("refuses") is True,
    )


def refuses_on(item: OfferList, day: date | None) -> bool:
    """Whether ``item`` may refuse a size on ``day``: it says it may, and its data is ``REFUSES_FOR_DAYS`` old or
    younger (an undated or unparsable date never refuses; no ``day``: the list's own word)."""
    if not item.refuses or day is None:
        return item.refuses
    try:
        data_day = date.fromisoformat(item.data_date[:10])
    except ValueError:
        return False
    return (day - data_day).days <= REFUSES_FOR_DAYS


def offer(size: str, region: str, snapshot: OffersSnapshot | None = None, day: date | None = None) -> Offer:
    """Whether ``size`` is sold in ``region``, as far as the snapshot knows on the plan's ``day``."""
    snapshot = snapshot if snapshot is not None else offers_snapshot()
    if snapshot is None:
        return Offer("not checked", "the offers snapshot is missing or unreadable")
    if size in snapshot.unlisted:
        return Offer("not checked", snapshot.unlisted[size])
    found = next((item for item in snapshot.lists if size in item.sizes), None)
    if found is None:
        return Offer("not checked", "the offers snapshot does not list this size")
    if region not in found.covers:
        return Offer("not checked", found.why)
    sold = found.sizes[size]
    if region in sold:
        return Offer("offered")
    refuses = refuses_on(found, day)
    age = "" if refuses or not found.refuses or day is None else f", over {REFUSES_FOR_DAYS} days before {day}"
    return Offer(
        "not offered" if refuses else "not listed",
        f"{found.source}, data of {found.data_date}{age}, lists no price for it there",
        nearest_by_name(region, sold),
    )


def nearest_by_name(region: str, regions: tuple[str, ...], count: int = 3) -> tuple[str, ...]:
    """The ``count`` regions spelled most like ``region`` (difflib's ratio), best first, ties by name."""
    return closest(region, regions, count=count, cutoff=0.0)
