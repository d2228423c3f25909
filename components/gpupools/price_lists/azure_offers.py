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
from urllib.parse import quote

from ..catalog.instances import sizes_for
from ..catalog.offers import OfferList, OffersSnapshot, packaged_offers, read_offers, snapshot_json
from ..untrusted.http_client import safe_url
from ..untrusted.strict_json import strict_loads
from ..untrusted.value_kinds import REGION, ValueRefused
from .azure import API, MAX_PAGES, page_prices, read_page
from .errors import PriceSourceError

SOURCE = "azure-retail-prices"
CLOUD = "azure"  # the cloud whose offers this refreshes


def size_query_url(size: str) -> str:
    """The first page of ``size``'s pay-as-you-go meters in every region."""
    flt = f"serviceName eq 'Virtual Machines' and armSkuName eq '{size}' and priceType eq 'Consumption'"
    return f"{API}?$filter={quote(flt)}"


def regions_selling(fetch: Callable[[str], bytes], size: str) -> set[str]:
    """The regions with a Linux pay-as-you-go meter for ``size``, following ``NextPageLink``; a region name that is
    not the shape of one (``value_kinds.REGION``) refuses the answer, before anything is written."""
    url: str | None = size_query_url(size)
    regions: set[str] = set()
    for _ in range(MAX_PAGES):
        if not url:
            return regions
        asked = url
        items, url = read_page(fetch(url), url)
        for index, item in enumerate(items):
            if item.armSkuName != size or not any(p.capacity == "onDemand" for p in page_prices([item], size, "-")):
                continue
            try:
                regions.add(REGION.checked(item.armRegionName, f"Items[{index}].armRegionName"))
            except ValueRefused as refused:
                raise PriceSourceError(f"{safe_url(asked)}: {refused}; nothing was written") from None
    raise PriceSourceError(f"{API}: more than {MAX_PAGES} pages for {size}; refusing to follow NextPageLink further")


def offers_text(fetch: Callable[[str], bytes], now: datetime | None = None) -> tuple[bytes, int]:
    """The offers cache's bytes, once read back as ``catalog.offers`` reads the cache, and the sizes it lists."""
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
    text = json.dumps(snapshot_json(fresh), indent=1) + "\n"
    try:
        read_offers(strict_loads(text))  # as catalog.offers reads the cache
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise PriceSourceError(
            f"the offers API answered a value the offers cache cannot hold ({error}); nothing was written"
        ) from None
    return text.encode("utf-8"), len(azure.sizes)


__all__ = ["CLOUD", "offers_text", "regions_selling", "size_query_url"]
