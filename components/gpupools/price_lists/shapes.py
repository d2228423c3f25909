"""The price lists' answer shapes as pydantic models, so a hostile or changed answer is one clear error.

Only the fields gpupools reads are declared; others are ignored. Numbers must be finite JSON numbers (strict JSON
already refused NaN and Infinity before these models see the answer).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr

Text = Annotated[StrictStr, Field(max_length=1000)]


class _Shape(BaseModel):
    model_config: ClassVar[ConfigDict] = ConfigDict(extra="ignore", frozen=True)


class AzureItem(_Shape):
    """One meter of the Azure Retail Prices API."""

    armSkuName: Text  # noqa: N815
    armRegionName: Text  # noqa: N815
    retailPrice: Annotated[StrictFloat | StrictInt, Field(allow_inf_nan=False)]  # noqa: N815
    unitOfMeasure: Text  # noqa: N815
    type: Text
    skuName: Text  # noqa: N815
    productName: Text  # noqa: N815
    currencyCode: Text  # noqa: N815


class AzurePage(_Shape):
    """One page: ``{"Items": [...], "NextPageLink": ..., "Count": n}``; the items are checked one by one."""

    Items: list[Any] = Field(max_length=100_000)
    NextPageLink: StrictStr | None = None
    Count: StrictInt | None = None


class AwsDimension(_Shape):
    unit: StrictStr
    pricePerUnit: dict[str, StrictStr]  # noqa: N815


class AwsOffer(_Shape):
    """One on-demand term of one sku: ``priceDimensions`` -> one hourly price."""

    priceDimensions: dict[str, AwsDimension]  # noqa: N815


class AwsProduct(_Shape):
    productFamily: StrictStr | None = None  # noqa: N815
    attributes: dict[str, StrictStr]
