"""``gpupools prices refresh``: read the clouds' public price lists over the network and write the local cache.

Only the catalog's sizes are kept. Without the network it stops with one error and leaves the cache as it was.
A cache holds one currency: refreshing in another replaces it whole, since prices in two currencies never add up.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from ..catalog.instances import sizes_for
from ..catalog.prices import CURRENCY, Price, PriceBook
from ..untrusted.http_client import HttpFailed, http_get, safe_url
from . import aws_source, azure_source  # noqa: F401  (attach each cloud's PriceSource)
from .book import cache_path, read_cache
from .errors import PriceSourceError
from .price_source import price_source

# One region's EC2 offer file is a few hundred MB; an Azure page about 100 KB. Both bounds are per request.
MAX_ANSWER_BYTES = 2 << 30
DEADLINE_SECONDS = 900


def fetch(url: str) -> bytes:
    """GET ``url`` through the kit's one HTTP client; any network failure is one ``PriceSourceError`` naming the
    URL (never its query)."""
    try:
        return http_get(url, deadline=time.monotonic() + DEADLINE_SECONDS, max_bytes=MAX_ANSWER_BYTES)
    except HttpFailed as error:
        raise PriceSourceError(
            f"cannot read {safe_url(url)}: {error} (refresh needs the network; offline "
            "plans keep using the cache or the packaged snapshot)"
        ) from None


def refresh(
    clouds: list[str],
    region: str | None,
    fetcher: Callable[[str], bytes] = fetch,
    now: datetime | None = None,
    path: Path | None = None,
    currency: str = CURRENCY,
) -> tuple[Path, list[Price], int]:
    """Fetch the prices of ``clouds`` (in ``region`` or the default regions) in ``currency`` and merge them into the
    cache; also returns how many cached prices in another currency were dropped."""
    for cloud in clouds:
        problem = price_source(cloud).currency_problem(currency)
        if problem is not None:
            raise PriceSourceError(problem)
    retrieved = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    fresh: list[Price] = []
    for cloud in clouds:
        source = price_source(cloud)
        for where in [region] if region else source.default_regions:
            fresh += source.load(fetcher, where, retrieved, sizes_for(cloud), currency)
    target = path or cache_path()
    old = read_cache(target)
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
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    temporary.write_text(json.dumps(book.to_json(), indent=1) + "\n", encoding="utf-8")
    temporary.replace(target)
    return target, fresh, dropped
