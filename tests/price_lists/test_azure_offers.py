"""The offers refresh on pages in the Azure Retail Prices API's documented shape (``Items``, ``NextPageLink``; item
fields as in recorded_prices/README.md): which regions sell a size, written where the plan reads it first."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from urllib.parse import unquote

from gpupools.catalog import offers
from gpupools.price_lists.azure_offers import offers_text, size_query_url
from support.hostile_io_cases import offers_item

NOW = datetime(2026, 11, 25, tzinfo=timezone.utc)


SOLD = {
    "Standard_ND96asr_v4": [("eastus", "Linux"), ("westeurope", "Linux"), ("westus3", "Windows")],
    "Standard_NC24ads_A100_v4": [("westus3", "Linux")],
}


def fake_fetch(url: str) -> bytes:
    query = unquote(url)
    size = query.split("armSkuName eq '")[1].split("'")[0]
    items = [
        offers_item(size, region, "Virtual Machines Windows" if kind == "Windows" else "Virtual Machines")
        for region, kind in SOLD.get(size, [])
    ]
    return json.dumps({"Items": items, "NextPageLink": None, "Count": len(items)}).encode()


def test_the_query_asks_for_one_size_in_every_region():
    url = unquote(size_query_url("Standard_ND96asr_v4"))
    assert "armSkuName eq 'Standard_ND96asr_v4'" in url and "armRegionName" not in url


def test_refresh_writes_what_the_plan_reads_first(tmp_path, monkeypatch):
    text, sizes = offers_text(fake_fetch, NOW)  # what prices refresh writes, with the prices (refresh_caches)
    path = tmp_path / "offers.json"
    path.write_bytes(text)
    assert sizes == 2
    written = json.loads(path.read_text())
    (azure,) = [item for item in written["lists"] if item["cloud"] == "azure"]
    assert azure["sizes"]["Standard_ND96asr_v4"] == ["eastus", "westeurope"]  # the Windows-only meter is not a sale
    assert azure["dataDate"] == "2026-11-25" and azure["refuses"] is True
    assert any(item["cloud"] == "aws" for item in written["lists"])  # AWS keeps the packaged list
    monkeypatch.setenv(offers.CACHE_VARIABLE, str(path))
    assert offers.offer("Standard_ND96asr_v4", "westeurope").status == "offered"
    refused = offers.offer("Standard_ND96asr_v4", "westus3")
    assert refused.status == "not offered" and set(refused.nearest) == {"eastus", "westeurope"}
    assert offers.offer("Standard_ND96asr_v4", "northeurope").status == "not checked"  # no catalog size sold there


def test_an_unreadable_cache_falls_back_to_the_packaged_snapshot(tmp_path, monkeypatch):
    broken = tmp_path / "offers.json"
    broken.write_text("{not json")
    monkeypatch.setenv(offers.CACHE_VARIABLE, str(broken))
    assert offers.offers_snapshot() == offers.packaged_offers()
