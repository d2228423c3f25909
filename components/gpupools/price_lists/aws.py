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
from ..untrusted.json_stream import Choice, JsonStream
from ..untrusted.strict_json import JsonRefused
from .errors import PriceSourceError
from .shapes import AwsOffer, AwsProduct

HOST = "https://pricing.us-east-1.amazonaws.com"
_WANTED = {"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used"}


def offer_url(region: str) -> str:
    return f"{HOST}/offers/v1.0/aws/AmazonEC2/current/{region}/index.json"


def parse(body: bytes, region: str, retrieved: str, sizes: Iterable[str] | None = None) -> list[Price]:
    """On-demand Linux prices per instance-hour from one region's offer file; a malformed file is refused whole."""
    reader = OfferReader(region, retrieved, sizes)
    reader.feed(body)
    return reader.close()


class OfferReader:
    """An offer file read as it arrives (``feed`` each piece, then ``close``): only the wanted products and their
    on-demand terms are kept, so a file of hundreds of MB is never held whole. Files list ``products`` before
    ``terms``; in the other order the on-demand terms are kept until the products arrive."""

    def __init__(self, region: str, retrieved: str, sizes: Iterable[str] | None = None):
        self.region: str = region
        self.retrieved: str = retrieved
        self.url: str = offer_url(region)
        self.wanted: set[str] | None = set(sizes) if sizes is not None else None
        self.stream: JsonStream = JsonStream(self._choose)
        self.products: dict[str, AwsProduct] = {}  # the wanted ones
        self.terms: dict[str, Any] = {}
        self.seen: set[str] = set()  # "products", "OnDemand"

    def feed(self, data: bytes) -> None:
        self._take(self.stream.feed, data)

    def close(self) -> list[Price]:
        self._take(lambda data: self.stream.close(), b"")
        if self.seen != {"products", "OnDemand"}:
            raise PriceSourceError(f"{self.url}: not an EC2 offer file (needs 'products' and 'terms.OnDemand')")
        prices: dict[str, Price] = {}
        for sku, product in self.products.items():
            usd = _hourly(self.terms.get(sku), self.url, sku)
            attributes = product.attributes
            if usd is not None and usd > 0:
                size, where = attributes["instanceType"], attributes.get("regionCode", self.region)
                prices.setdefault(size, Price("aws", size, where, "onDemand", usd, self.url, self.retrieved))
        return sorted(prices.values(), key=lambda p: p.size)

    def _take(self, step: Any, data: bytes) -> None:
        try:
            entries = step(data)
        except JsonRefused as error:
            raise PriceSourceError(
                f"{self.url}: not a complete JSON offer file ({error.__class__.__name__}: {error}); "
                "the download may be truncated"
            ) from None
        for path, value in entries:
            if path[0] == "products":
                self._product(path[1], value)
            elif path[2] in self.products or "products" not in self.seen:
                self.terms[path[2]] = value

    def _product(self, sku: str, raw: Any) -> None:
        try:
            product = AwsProduct.model_validate(raw)
        except ValidationError:
            raise PriceSourceError(f"{self.url}: products[{sku[:80]}] has no 'attributes' of text values") from None
        attributes = product.attributes
        size = attributes.get("instanceType")
        if product.productFamily != "Compute Instance" or not size or (self.wanted and size not in self.wanted):
            return
        if any(attributes.get(key) != value for key, value in _WANTED.items()):
            return
        if attributes.get("marketoption", "OnDemand") != "OnDemand":  # older files have no marketoption
            return
        self.products[sku] = product

    def _choose(self, path: tuple[str, ...]) -> Choice:
        if path in (("products",), ("terms", "OnDemand")):
            self.seen.add(path[-1])
        return _choose(path)


def _choose(path: tuple[str, ...]) -> Choice:
    """What of an offer file is read: each product and each on-demand term, one at a time; the rest is skipped."""
    if path in (("products",), ("terms",), ("terms", "OnDemand")):
        return "descend"
    if len(path) == 2 and path[0] == "products" or len(path) == 3 and path[:2] == ("terms", "OnDemand"):
        return "keep"
    if len(path) == 2 and path[0] == "terms":  # Reserved: entry by entry, each dropped
        return "descend"
    return "skip"


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
