"""Which regions sell each Azure catalog size, from the Azure Retail Prices API, into the offers cache that
``catalog/offers.py`` reads before its packaged snapshot. ``gpupools prices refresh`` calls it after the prices.

One anonymous query per size (``armSkuName eq '<size>'``, every region, pay-as-you-go): a region with a Linux
Consumption meter for the size sells it. The list covers every region the API answered for any catalog size, and
is recent, so a size missing from one of them is refused. AWS keeps the packaged list: the EC2 offer file is a few
hundred MB per region, and the API that lists instance type offerings needs credentials.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from ..catalog.instances import sizes_for
from ..catalog.offers import OfferList, OffersSnapshot, offers_cache_path, packaged_offers, snapshot_json
from .azure import API, MAX_PAGES, page_prices, read_page
from .errors import PriceSourceError

SOURCE = "azure-retail-prices"
CLOUD = "azure"  # the cloud whose offers this refreshes


def size_query_url(size: str) -> str:
    """The first page of ``size``'s pay-as-you-go meters in every region."""
    flt = f"serviceName eq 'Virtual Machines' and armSkuName eq '{size}' and priceType eq 'Consumption'"
    return f"{API}?$filter={quote(flt)}"


def regions_selling(fetch: Callable[[str], bytes], size: str) -> set[str]:
    """The regions with a Linux pay-as-you-go meter for ``size``, following ``NextPageLink``."""
    url: str | None = size_query_url(size)
    regions: set[str] = set()
    for _ in range(MAX_PAGES):
        if not url:
            return regions
        items, url = read_page(fetch(url), url)
        regions |= {p.region for p in page_prices(items, size, "-") if p.size == size and p.capacity == "onDemand"}
    raise PriceSourceError(f"{API}: more than {MAX_PAGES} pages for {size}; refusing to follow NextPageLink further")


def refresh_offers(
    fetch: Callable[[str], bytes], now: datetime | None = None, path: Path | None = None
) -> tuple[Path, int]:
    """Write the offers cache: Azure from the API, the rest from the packaged snapshot; returns it and the sizes."""
    packaged = packaged_offers()
    if packaged is None:
        raise PriceSourceError("the packaged offers snapshot cannot be read; reinstall gpupools")
    day = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%d")
    sizes = {size: tuple(sorted(regions_selling(fetch, size))) for size in sizes_for(CLOUD)}
    covers = frozenset(region for regions in sizes.values() for region in regions)
    azure = OfferList(
        CLOUD,
        SOURCE,
        day,
        covers,
        "a location where the API sold none of the catalog's sizes when refreshed: not checked",
        {size: regions for size, regions in sizes.items() if regions},
        refuses=True,
    )
    unlisted = {size: why for size, why in packaged.unlisted.items() if size not in azure.sizes}
    fresh = OffersSnapshot(
        day,
        tuple(item for item in packaged.lists if item.cloud != CLOUD) + (azure,),
        unlisted,
        {
            **packaged.sources,
            SOURCE: {"url": API, "dataDate": day, "what": "Azure Retail Prices API, one query per size"},
        },
        packaged.zones,
    )
    target = path or offers_cache_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    temporary.write_text(json.dumps(snapshot_json(fresh), indent=1) + "\n", encoding="utf-8")
    temporary.replace(target)
    return target, len(azure.sizes)


__all__ = ["CLOUD", "refresh_offers", "regions_selling", "size_query_url"]
