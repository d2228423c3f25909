"""Azure's price source: the Azure Retail Prices API (``azure.load``), in any currency it publishes."""

from __future__ import annotations

from ..catalog.cloud_registry import cloud
from . import azure
from .price_source import PriceSource

cloud("azure").attach(PriceSource(default_regions=("southcentralus", "eastus"), load=azure.load))
