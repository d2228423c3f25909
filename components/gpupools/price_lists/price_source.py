"""``PriceSource``: the price-list layer's facet of a cloud, where ``gpupools prices refresh`` reads its prices.

Each cloud's ``<cloud>_source`` module attaches one when ``gpupools.price_lists`` is imported; ``refresh`` asks
``price_source(cloud)`` instead of naming a cloud.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.prices import Price

Fetcher = Callable[[str], bytes]  # GET url -> a body of bounded size, held whole


def read_streamed(fetcher: Fetcher, url: str, feed: Callable[[bytes], None]) -> None:
    """GET ``url`` and hand its body to ``feed`` piece by piece as it arrives, when ``fetcher`` can stream (it has
    a ``stream(url, feed)`` method, as refresh's network fetcher does); otherwise whole, in one piece."""
    stream = getattr(fetcher, "stream", None)
    if stream is None:
        feed(fetcher(url))
    else:
        stream(url, feed)


def any_currency(currency: str) -> str | None:
    return None


@dataclass(frozen=True)
class PriceSource:
    capability: ClassVar[str] = "refreshing prices"
    default_regions: tuple[str, ...]  # the regions the repository's stacks use, refreshed when no --region is given
    # (fetcher, region, retrieved, sizes, currency) -> the region's prices of those sizes
    load: Callable[[Fetcher, str, str, list[str], str], list[Price]]
    currency_problem: Callable[[str], str | None] = any_currency  # why the list cannot be read in a currency


def price_source(name: str) -> PriceSource:
    """Where the prices of the cloud called ``name`` come from; ``CloudNotSupported`` when gpupools reads none."""
    return cloud_named(name).facet(PriceSource)
