"""The price book an offline plan uses: prices refreshed into the local cache first, the packaged snapshot for
the rest. Nothing here touches the network.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from ..catalog.prices import PriceBook, PriceBookError, price_cache_path, read_price_book, snapshot
from ..config.errors import ConfigError, Problem
from ..untrusted.files import FileRefused, read_text
from ..untrusted.strict_json import JsonRefused, strict_loads

# A cache of every region of both clouds is a few MB; a larger file is refused by its size before it is read, and
# the value count bounds what parsing it may build (about 1 KB of memory per value).
MAX_CACHE_BYTES = 16 << 20
MAX_CACHE_VALUES = 400_000
REFRESH_ADVICE = "delete it or run gpupools prices refresh"
_NO_FILE_THERE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG})


def cache_path() -> Path:
    return price_cache_path()


def read_cache(path: Path, advice: str = REFRESH_ADVICE) -> PriceBook | None:
    """The cache at ``path``, None when there is none (nothing there, or a path no file can be at, such as one under
    a 5000-character ``XDG_CACHE_HOME``); an unreadable one is one error naming the file and ``advice``."""
    try:
        os.stat(path)
    except OSError as error:
        if error.errno in _NO_FILE_THERE:
            return None
    except ValueError:  # a NUL character: no file can be there
        return None
    try:
        text = read_text(path, "price cache", MAX_CACHE_BYTES)
        return read_price_book(strict_loads(text, max_nodes=MAX_CACHE_VALUES), f"cache {path}")
    except FileRefused as error:
        problem = error.message
    except (JsonRefused, PriceBookError) as error:
        problem = str(error)
    raise ConfigError([Problem(f"price cache {path}", f"cannot be read ({problem}); {advice}")]) from None


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
