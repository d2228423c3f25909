"""``gpupools prices refresh``: read the clouds' public price lists over the network and write the local cache.

Only the catalog's sizes are kept. Without the network it stops with one error and leaves the cache as it was.
A cache holds one currency: refreshing in another replaces it whole, since prices in two currencies never add up.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from ..catalog.instances import sizes_for
from ..catalog.prices import CURRENCY, Price, PriceBook, PriceBookError, read_price_book
from ..untrusted.atomic_file import check_writable, write_atomically
from ..untrusted.http_client import HttpFailed, http_get, safe_url
from ..untrusted.strict_json import strict_loads
from . import aws_source, azure_source  # noqa: F401  (attach each cloud's PriceSource)
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
REGION = re.compile(r"[a-z0-9-]{2,40}")  # the shape the cache reader accepts
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


def refresh(
    clouds: list[str],
    region: str | None,
    fetcher: Fetcher | None = None,
    now: datetime | None = None,
    path: Path | None = None,
    currency: str = CURRENCY,
) -> tuple[Path, list[Price], int]:
    """Fetch the prices of ``clouds`` (in ``region`` or the default regions) in ``currency`` and merge them into the
    cache; also returns how many cached prices in another currency were dropped. The cache is checked before the
    network is asked, and what is written is first read back as the cache reader would: nothing it would refuse
    is ever written, and on any failure the old cache is left as it was."""
    for cloud in clouds:
        problem = price_source(cloud).currency_problem(currency)
        if problem is not None:
            raise PriceSourceError(problem)
    if region is not None and not REGION.fullmatch(region):
        raise PriceSourceError(
            f"--region {region[:40]!r} is not a region name (lowercase letters, digits and '-', such as eastus)"
        )
    target = path or cache_path()
    check_writable(target, "price cache")  # a folder, "/" or a path under a file: said as such, before the rest
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
    write_atomically(target, readable_text(book).encode("utf-8"), "price cache")
    return target, fresh, dropped


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
