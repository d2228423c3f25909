"""AWS's public price list for EC2: the bulk offer file of one region
(``https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.json``), with
``products`` (sku -> ``attributes``) and ``terms.OnDemand`` (sku -> offer -> ``priceDimensions`` ->
``pricePerUnit.USD`` per ``Hrs``).

Kept: on-demand Linux, shared tenancy, no pre-installed software, ``capacitystatus`` Used, ``marketoption``
OnDemand. Reserved terms are left out. Spot prices change with supply and demand and are not in this file. Capacity
Block rows (``marketoption`` CapacityBlock) sit under ``terms.OnDemand`` too, at $0.00: their reservation fee is set
at purchase, so they are never taken as a size's price, and a size sold only that way (p5e) stays unknown.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from ..catalog.prices import Price
from ..untrusted.strict_json import JsonRefused, strict_loads
from .errors import PriceSourceError
from .shapes import AwsOffer, AwsOfferFile, AwsProduct

HOST = "https://pricing.us-east-1.amazonaws.com"
_WANTED = {"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used"}


def offer_url(region: str) -> str:
    return f"{HOST}/offers/v1.0/aws/AmazonEC2/current/{region}/index.json"


def parse(body: bytes, region: str, retrieved: str, sizes: Iterable[str] | None = None) -> list[Price]:
    """On-demand Linux prices per instance-hour from one region's offer file; a malformed file is refused whole."""
    url = offer_url(region)
    try:
        document = strict_loads(body)
    except JsonRefused as error:
        raise PriceSourceError(
            f"{url}: not a complete JSON offer file ({error.__class__.__name__}: {error}); "
            "the download may be truncated"
        ) from None
    try:
        offer = AwsOfferFile.model_validate(document)
    except ValidationError:
        offer = None
    on_demand = offer.terms.get("OnDemand") if offer else None
    if offer is None or not isinstance(on_demand, dict):
        raise PriceSourceError(f"{url}: not an EC2 offer file (needs 'products' and 'terms.OnDemand')")
    products = offer.products
    wanted = set(sizes) if sizes is not None else None
    prices: dict[str, Price] = {}
    for sku, raw in products.items():
        try:
            product = AwsProduct.model_validate(raw)
        except ValidationError:
            raise PriceSourceError(f"{url}: products[{sku[:80]}] has no 'attributes' of text values") from None
        attributes = product.attributes
        size = attributes.get("instanceType")
        if product.productFamily != "Compute Instance" or not size or (wanted and size not in wanted):
            continue
        if any(attributes.get(key) != value for key, value in _WANTED.items()):
            continue
        if attributes.get("marketoption", "OnDemand") != "OnDemand":  # older files have no marketoption
            continue
        usd = _hourly(on_demand.get(sku), url, sku)
        if usd is not None and usd > 0:
            prices.setdefault(
                size, Price("aws", size, attributes.get("regionCode", region), "onDemand", usd, url, retrieved)
            )
    return sorted(prices.values(), key=lambda p: p.size)


def _hourly(offers: Any, url: str, sku: str) -> float | None:
    """The sku's on-demand USD per hour, or None when the file lists no on-demand term for it."""
    if offers is None:
        return None
    try:
        [offer] = offers.values()
        [dimension] = AwsOffer.model_validate(offer).priceDimensions.values()
        if dimension.unit != "Hrs":
            return None
        usd = float(dimension.pricePerUnit["USD"])
        if not math.isfinite(usd):
            raise ValueError(f"{dimension.pricePerUnit['USD'][:20]!r} is not a finite price")
        return usd
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        reason = error.errors(include_url=False)[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise PriceSourceError(
            f"{url}: terms.OnDemand[{sku[:80]}] is not one offer with one hourly USD price "
            f"({error.__class__.__name__}: {reason})"
        ) from None
