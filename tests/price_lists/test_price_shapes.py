"""A hostile price answer is one clear error and never reaches the cache: NaN, Infinity or an absurd number in an
Azure page, a wrong type in the EC2 offer file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupools.price_lists import aws, azure
from gpupools.price_lists.errors import PriceSourceError
from gpupools.price_lists.refresh import refresh_caches

ITEM = {
    "armSkuName": "Standard_ND96asr_v4",
    "armRegionName": "southcentralus",
    "retailPrice": 27.5,
    "unitOfMeasure": "1 Hour",
    "type": "Consumption",
    "skuName": "ND96asr v4",
    "productName": "Virtual Machines NDasr A100 v4 Series",
    "currencyCode": "USD",
}


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1" * 400])
def test_an_azure_page_with_a_non_finite_price_is_refused_and_the_cache_is_not_written(
    tmp_path: Path, number: str
) -> None:
    page = json.dumps({"Items": [ITEM], "NextPageLink": None, "Count": 1}).replace("27.5", number).encode()
    cache = tmp_path / "prices.json"
    with pytest.raises(PriceSourceError, match="not a complete JSON page") as error:
        refresh_caches(["azure"], "southcentralus", fetcher=lambda url: page, path=cache)
    assert "\n" not in str(error.value)
    assert not cache.exists()


def test_a_valid_azure_page_still_prices() -> None:
    page = json.dumps({"Items": [ITEM], "NextPageLink": None, "Count": 1}).encode()
    [price] = azure.load(lambda url: page, "southcentralus", "t")
    assert (price.size, price.per_hour) == ("Standard_ND96asr_v4", 27.5)


def test_an_azure_item_field_of_the_wrong_type_names_it() -> None:
    page = json.dumps({"Items": [{**ITEM, "skuName": ["x"]}], "NextPageLink": None}).encode()
    with pytest.raises(PriceSourceError, match=r"Items\[0\]\.skuName"):
        azure.load(lambda url: page, "southcentralus", "t")


def test_an_aws_product_whose_attributes_are_not_text_is_refused() -> None:
    offer = {"products": {"S": {"productFamily": "Compute Instance", "attributes": {"instanceType": 5}}}}
    offer["terms"] = {"OnDemand": {}}
    with pytest.raises(PriceSourceError, match=r"products\[S\] has no 'attributes' of text values"):
        aws.parse(json.dumps(offer).encode(), "us-east-1", "t")
