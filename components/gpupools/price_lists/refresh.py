"""``gpupools prices refresh``: read the clouds' public price lists over the network and write the local cache.

Only the catalog's sizes are kept. Without the network it stops with one error and leaves the cache as it was.
A cache holds one currency: refreshing in another replaces it whole, since prices in two currencies never add up.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..catalog.instances import sizes_for
from ..catalog.prices import CURRENCY, Price, PriceBook, PriceBookError, read_price_book
from ..catalog.offers import offers_cache_path
from ..untrusted.atomic_file import check_writable, write_all_or_none
from ..untrusted.text import terminal_safe
from ..untrusted.value_kinds import REGION
from ..untrusted.http_client import HttpFailed, http_get, safe_url
from ..untrusted.strict_json import strict_loads
from . import aws_source, azure_source  # noqa: F401  (attach each cloud's PriceSource)
from .azure_offers import offers_text
from .book import MAX_CACHE_VALUES, cache_path, read_cache
from .errors import PriceSourceError
from .price_source import Fetcher, price_source

# One region's EC2 offer file is a few hundred MB and is read as it arrives, never held whole; an Azure page is about
# 100 KB and is held. The size bounds are per answer; the deadline is for the whole refresh, every page and region.
MAX_STREAMED_BYTES = 2 << 30
MAX_ANSWER_BYTES = 16 << 20
DEADLINE_SECONDS = 900
# A server silent for SILENCE_SECONDS, or sending fewer than LOW_SPEED[0] bytes in any LOW_SPEED[1] seconds (its
# answer's head included), ends the refresh there: a real price list streams far faster; a hostile one would
# otherwise hold it to the deadline.
SILENCE_SECONDS = 10.0
LOW_SPEED = (1024, 10.0)
_KEPT_AS_IT_WAS = "it was left as it was: delete it if gpupools wrote it, or set GPUPOOLS_PRICE_CACHE to another path"


class NetworkFetcher:
    """GETs through the kit's one HTTP client, all ending by one ``deadline`` (a ``time.monotonic()`` value);
    a failure is one ``PriceSourceError`` naming the URL (never its query)."""

    def __init__(self, deadline: float):
        self.deadline = deadline

    def __call__(self, url: str) -> bytes:
        return self._get(url, MAX_ANSWER_BYTES, None)

    def stream(self, url: str, feed: Callable[[bytes], None]) -> None:
        self._get(url, MAX_STREAMED_BYTES, feed)

    def _get(self, url: str, limit: int, feed: Callable[[bytes], None] | None) -> bytes:
        try:
            return http_get(
                url,
                deadline=self.deadline,
                max_bytes=limit,
                sink=feed,
                read_timeout=SILENCE_SECONDS,
                low_speed=LOW_SPEED,
            )
        except HttpFailed as error:
            raise PriceSourceError(
                f"cannot read {safe_url(url)}: {error} (refresh needs the network; offline "
                "plans keep using the cache or the packaged snapshot)"
            ) from None


def fetcher_until(deadline: float) -> Fetcher:
    """The network fetcher for one refresh: every GET, streamed or not, ends by ``deadline``."""
    return NetworkFetcher(deadline)


def fetch(url: str) -> bytes:
    """GET ``url`` within ``DEADLINE_SECONDS``."""
    return fetcher_until(time.monotonic() + DEADLINE_SECONDS)(url)


@dataclass(frozen=True)
class Refreshed:
    """What one refresh wrote: the price cache, the prices read, how many cached prices in another currency were
    dropped, and the offers cache with the sizes it lists (None, 0 when offers were not refreshed)."""

    prices_path: Path
    fresh: list[Price]
    dropped: int
    offers_path: Path | None = None
    offer_sizes: int = 0


def refresh_caches(
    clouds: list[str],
    region: str | None,
    fetcher: Fetcher | None = None,
    now: datetime | None = None,
    path: Path | None = None,
    currency: str = CURRENCY,
    offers_path: Path | None = None,
    with_offers: bool = False,
) -> Refreshed:
    """One transaction: fetch the prices of ``clouds`` (in ``region`` or the default regions) in ``currency`` and,
    ``with_offers``, the regions selling each Azure size, all by one deadline; read both back as their readers
    would; then write both caches, or neither. Both paths are checked before the network is asked; on any failure
    both caches are left as they were (bytes, mode, symlinks)."""
    for cloud in clouds:
        problem = price_source(cloud).currency_problem(currency)
        if problem is not None:
            raise PriceSourceError(problem)
    if region is not None and REGION.problem(region) is not None:
        raise PriceSourceError(
            f"--region {region[:40]!r} is not a region name (lowercase letters, digits and '-', such as eastus)"
        )
    target = path or cache_path()
    check_writable(target, "price cache")  # a folder, "/" or a path under a file: said as such, before the rest
    offers_target = (offers_path or offers_cache_path()) if with_offers else None
    if offers_target is not None:
        check_writable(offers_target, "offers cache")
        if _same_file(offers_target, target):
            raise PriceSourceError(
                f"the offers cache {terminal_safe(str(offers_target))[:200]} is the price cache; "
                "set GPUPOOLS_OFFERS_CACHE to another file"
            )
    old = read_cache(target, _KEPT_AS_IT_WAS)
    fetcher = fetcher or fetcher_until(time.monotonic() + DEADLINE_SECONDS)
    retrieved = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    fresh: list[Price] = []
    for cloud in clouds:
        source = price_source(cloud)
        for where in [region] if region else source.default_regions:
            fresh += source.load(fetcher, where, retrieved, sizes_for(cloud), currency)
    same = old is not None and old.currency == currency
    keys = {(p.cloud, p.region) for p in fresh}
    kept = [p for p in old.prices if (p.cloud, p.region) not in keys] if old and same else []
    dropped = len(old.prices) if old and not same else 0
    book = PriceBook(
        f"cache {target}",
        retrieved,
        currency,
        tuple(kept + fresh),
        "Written by gpupools prices refresh from the Azure Retail Prices API and the AWS EC2 "
        "offer files; each price names the URL it was read from.",
    )
    writes = [(target, readable_text(book).encode("utf-8"), "price cache")]
    sizes = 0
    if offers_target is not None:
        text, sizes = offers_text(fetcher, now)
        writes.append((offers_target, text, "offers cache"))
    write_all_or_none(writes)
    return Refreshed(target, fresh, dropped, offers_target, sizes)


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.realpath(one) == os.path.realpath(other)
    except (OSError, ValueError):
        return False


def readable_text(book: PriceBook) -> str:
    """The cache's JSON text, once the cache reader has accepted it; a price it would refuse is a
    ``PriceSourceError`` (the price list answered something gpupools cannot use)."""
    try:
        text = json.dumps(book.to_json(), indent=1, allow_nan=False) + "\n"
        read_price_book(strict_loads(text, max_nodes=MAX_CACHE_VALUES), book.origin)
    except (ValueError, PriceBookError) as error:  # JsonRefused and json's "Out of range float" are ValueErrors
        raise PriceSourceError(
            f"the price list answered a value the cache cannot hold ({error}); nothing was written"
        ) from None
    return text
