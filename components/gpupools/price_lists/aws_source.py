"""AWS's price source: the EC2 offer file of a region, read as it arrives (``aws.OfferReader``); USD only."""

from __future__ import annotations

from ..catalog.cloud_registry import cloud
from ..catalog.prices import CURRENCY, Price
from . import aws
from .price_source import Fetcher, PriceSource, read_streamed


def _load(fetcher: Fetcher, region: str, retrieved: str, sizes: list[str], currency: str) -> list[Price]:
    reader = aws.OfferReader(region, retrieved, sizes)  # a region's file is hundreds of MB: read as it arrives
    read_streamed(fetcher, aws.offer_url(region), reader.feed)
    return reader.close()


def _currency_problem(currency: str) -> str | None:
    if currency == CURRENCY:
        return None
    return (
        f"--currency {currency}: AWS publishes its EC2 price list in {CURRENCY} only; "
        f"refresh AWS in {CURRENCY}, or Azure alone (--cloud azure) in {currency}"
    )


cloud("aws").attach(PriceSource(default_regions=("us-east-1",), load=_load, currency_problem=_currency_problem))
