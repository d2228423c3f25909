"""The price book an offline plan uses: prices refreshed into the local cache first, the packaged snapshot for
the rest. Nothing here touches the network.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..catalog.prices import PriceBook, PriceBookError, read_price_book, snapshot
from ..config.errors import ConfigError, Problem
from ..untrusted.files import FileRefused, read_text
from ..untrusted.strict_json import JsonRefused, strict_loads

MAX_CACHE_BYTES = 64 << 20  # a cache of every region of both clouds is a few MB
CACHE_VARIABLE = "GPUPOOLS_PRICE_CACHE"  # a path; the default is $XDG_CACHE_HOME/gpupools/prices.json


def cache_path() -> Path:
    explicit = os.environ.get(CACHE_VARIABLE)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpupools" / "prices.json"


def read_cache(path: Path) -> PriceBook | None:
    """The cache at ``path``, None when there is none; an unreadable one is one error naming the file."""
    if not path.is_file():
        return None
    try:
        return read_price_book(strict_loads(read_text(path, "price cache", MAX_CACHE_BYTES)), f"cache {path}")
    except FileRefused as error:
        raise ConfigError(
            [
                Problem(
                    f"price cache {path}", f"cannot be read ({error.message}); delete it or run gpupools prices refresh"
                )
            ]
        ) from None
    except (JsonRefused, PriceBookError) as error:
        raise ConfigError(
            [Problem(f"price cache {path}", f"cannot be read ({error}); delete it or run gpupools prices refresh")]
        ) from None


def current_price_book() -> PriceBook:
    """Cache prices over the snapshot's (the cache alone when it is in another currency), and the snapshot's sizes
    without a list price; ``origin`` names what was used."""
    packaged = snapshot()
    cached = read_cache(cache_path())
    if cached is None:
        return packaged
    if cached.currency != packaged.currency:  # never add up two currencies: the cache alone
        return PriceBook(
            f"{cached.origin} (refreshed {cached.retrieved}, in {cached.currency}; the "
            f"{packaged.currency} snapshot is not used)",
            cached.retrieved,
            cached.currency,
            cached.prices,
            cached.how_made,
            packaged.unlisted,
        )
    keys = {(p.size, p.region, p.capacity) for p in cached.prices}
    merged = cached.prices + tuple(p for p in packaged.prices if (p.size, p.region, p.capacity) not in keys)
    return PriceBook(
        f"{cached.origin} (refreshed {cached.retrieved}), then snapshot ({packaged.retrieved})",
        cached.retrieved,
        cached.currency,
        merged,
        cached.how_made,
        packaged.unlisted,
    )
