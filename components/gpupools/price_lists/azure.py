"""The Azure Retail Prices API (``https://prices.azure.com/api/retail/prices``): anonymous JSON pages of meters,
``{"Items": [...], "NextPageLink": ..., "Count": n}``, each item with ``armSkuName``, ``armRegionName``,
``retailPrice``, ``unitOfMeasure``, ``type`` and ``skuName``.

Kept: ``type`` Consumption, ``unitOfMeasure`` "1 Hour", the currency asked for (``currencyCode``; USD is
Microsoft's retail price, other currencies are "for your reference"), Linux meters. Spot meters (``skuName`` ends in
"Spot") are the Spot price; Windows meters (``productName`` has "Windows"), Low Priority meters (Batch's, not a
capacity AKS node pools use), Reservation and DevTestConsumption prices are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError

from ..catalog.prices import CURRENCY, Price
from ..untrusted.strict_json import JsonRefused, strict_loads
from .errors import PriceSourceError
from .shapes import AzureItem, AzurePage

API = "https://prices.azure.com/api/retail/prices"
MAX_PAGES = 200  # a region's VM meters are a few thousand items, 100 per page
_FIELDS = (
    "armSkuName",
    "armRegionName",
    "retailPrice",
    "unitOfMeasure",
    "type",
    "skuName",
    "productName",
    "currencyCode",
)


def query_url(region: str, currency: str = CURRENCY) -> str:
    """The first page of a region's pay-as-you-go VM meters in ``currency``."""
    flt = f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}' and priceType eq 'Consumption'"
    return f"{API}?currencyCode='{currency}'&$filter={quote(flt)}"


def load(
    fetch: Callable[[str], bytes],
    region: str,
    retrieved: str,
    sizes: Iterable[str] | None = None,
    currency: str = CURRENCY,
) -> list[Price]:
    """Every page from ``query_url(region)`` on, following ``NextPageLink``; prices of ``sizes`` (all if None)."""
    first = query_url(region, currency)  # every price names the query, not the page it was on
    url: str | None = first
    wanted = set(sizes) if sizes is not None else None
    found: dict[tuple[str, str, str], Price] = {}
    answered: set[str] = set()
    for _ in range(MAX_PAGES):
        if not url:
            if answered and currency not in answered:
                raise PriceSourceError(
                    f"{API}: asked for {currency}, it answered in {', '.join(sorted(answered))}: "
                    f"{currency} is not a currency the API prices in"
                )
            return sorted(found.values(), key=lambda p: (p.size, p.region, p.capacity))
        items, url = read_page(fetch(url), url)
        answered.update(item.currencyCode for item in items)
        for price in page_prices(items, first, retrieved, currency):
            if (wanted is None or price.size in wanted) and price.region == region:  # what was asked, nothing else
                found.setdefault((price.size, price.region, price.capacity), price)
    raise PriceSourceError(f"{API}: more than {MAX_PAGES} pages; refusing to follow NextPageLink further")


def read_page(body: bytes, url: str) -> tuple[list[AzureItem], str | None]:
    """A page's items and the next page's link; a page that is not the documented shape (or holds NaN, Infinity
    or an absurd number) is refused whole, so nothing of it reaches the cache."""
    try:
        document = strict_loads(body)
    except JsonRefused as error:
        raise PriceSourceError(
            f"{url}: not a complete JSON page ({error.__class__.__name__}: {error}); the response may be truncated"
        ) from None
    try:
        page = AzurePage.model_validate(document)
    except ValidationError as error:
        if not isinstance(document, dict) or not isinstance(document.get("Items"), list):
            raise PriceSourceError(f"{url}: not a Retail Prices page (no 'Items' list)") from None
        first = error.errors(include_url=False)[0]
        raise PriceSourceError(f"{url}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    items, count, link = page.Items, page.Count, page.NextPageLink
    if count is not None and count != len(items):
        raise PriceSourceError(f"{url}: 'Count' is {count} but the page holds {len(items)} items; truncated")
    if link is not None and not link.startswith(API):
        raise PriceSourceError(f"{url}: NextPageLink {link[:80]!r} does not lead to {API}")
    return [_item(item, url, index) for index, item in enumerate(items)], link or None


def _item(item: Any, url: str, index: int) -> AzureItem:
    missing = [name for name in _FIELDS if not isinstance(item, dict) or item.get(name) is None]
    if missing:
        raise PriceSourceError(f"{url}: Items[{index}] lacks {', '.join(missing)}")
    try:
        return AzureItem.model_validate(item)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        name = first["loc"][0]
        if name == "retailPrice":
            raise PriceSourceError(
                f"{url}: Items[{index}].retailPrice {item['retailPrice']!r} is not a number"
            ) from None
        raise PriceSourceError(f"{url}: Items[{index}].{name}: {first['msg']}") from None


def page_prices(items: list[AzureItem], source: str, retrieved: str, currency: str = CURRENCY) -> list[Price]:
    """The items that are a Linux pay-as-you-go or Spot price per VM-hour, as prices."""
    prices = []
    for item in items:
        sku, product = item.skuName, item.productName
        if (
            item.type != "Consumption"
            or item.unitOfMeasure != "1 Hour"
            or item.currencyCode != currency
            or "Windows" in product
            or "Low Priority" in sku
            or item.retailPrice <= 0
        ):
            continue
        capacity = "spot" if sku.endswith("Spot") else "onDemand"
        prices.append(
            Price(
                "azure",
                item.armSkuName,
                item.armRegionName,
                capacity,
                float(item.retailPrice),
                source,
                retrieved,
            )
        )
    return prices
