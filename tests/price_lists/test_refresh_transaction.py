"""A refresh is one transaction (issue 36): prices and offers are fetched by one deadline, read back as their readers
read them, then written together or not at all; on any failure both caches stay as they were, byte for byte, with
their mode and their symlinks. Server values are checked by kind (``untrusted.value_kinds``) before anything is
written, and a hostile offers cache is never used."""

from __future__ import annotations

import json
import os
import stat
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gpupools.catalog import offers
from gpupools.price_lists import refresh as refresh_module
from gpupools.price_lists.errors import PriceSourceError
from gpupools.price_lists.refresh import refresh_caches
from gpupools.untrusted import atomic_file
from gpupools.untrusted.atomic_file import write_all_or_none
from gpupools.untrusted.files import FileRefused
from gpupools.untrusted.value_kinds import NAME, REGION, SIZE, price_problem
from support import hostile_catalogue as k
from support.hostile_io_cases import HOSTILE_REGIONS, offers_item, price_host

NOW = datetime(2026, 11, 25, tzinfo=timezone.utc)
PAGE = k.azure_page()


def _fetcher(regions=lambda size: ["eastus", "westeurope"], seen: list[str] | None = None):
    """The API as a function of the URL (a size query or a region's price page); records each URL in ``seen``."""

    def fetch(url: str) -> bytes:
        if seen is not None:
            seen.append(url)
        if "armSkuName" not in url:
            return PAGE
        size = url.split("armSkuName%20eq%20%27")[1].split("%27")[0]
        items = [offers_item(size, region) for region in regions(size)]
        return json.dumps({"Items": items, "NextPageLink": None, "Count": len(items)}).encode()

    return fetch


def _state(*paths: Path) -> list[tuple[str, bytes, int] | None]:
    """Each path's link target (or ''), bytes and mode; None when absent."""
    return [
        (os.readlink(p) if p.is_symlink() else "", p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        if p.exists()
        else None
        for p in paths
    ]


@pytest.fixture
def caches(tmp_path: Path) -> tuple[Path, Path]:
    prices, cached_offers = tmp_path / "prices.json", tmp_path / "offers.json"
    prices.write_bytes(b'{"format": "gpupools-prices/2", "currency": "USD", "retrieved": "2026-11-01", "prices": []}')
    prices.chmod(0o640)
    cached_offers.write_bytes(b"old offers\n")
    cached_offers.chmod(0o600)
    return prices, cached_offers


def _refresh(prices: Path, cached_offers: Path, fetch) -> None:
    refresh_caches(["azure"], None, fetch, NOW, prices, offers_path=cached_offers, with_offers=True)


def test_both_caches_are_written_through_one_fetcher(caches):
    prices, cached_offers = caches
    seen: list[str] = []
    _refresh(prices, cached_offers, _fetcher(seen=seen))
    assert any("armRegionName" in url for url in seen) and any("armSkuName" in url for url in seen)
    written = offers.read_offers(json.loads(cached_offers.read_text()))
    (azure,) = [item for item in written.lists if item.cloud == "azure"]
    assert azure.sizes["Standard_ND96asr_v4"] == ("eastus", "westeurope")
    assert json.loads(prices.read_text())["prices"]
    assert stat.S_IMODE(cached_offers.stat().st_mode) == 0o600 and stat.S_IMODE(prices.stat().st_mode) == 0o640


@pytest.mark.parametrize("name", list(HOSTILE_REGIONS))
def test_a_hostile_region_name_leaves_both_caches_as_they_were(caches, name):  # example 2
    before = _state(*caches)
    with pytest.raises(PriceSourceError, match=r"Items\[1\]\.armRegionName: .*nothing was written"):
        _refresh(*caches, _fetcher(lambda size: ["eastus", HOSTILE_REGIONS[name]]))
    assert _state(*caches) == before


def test_a_failed_offers_query_leaves_the_price_cache_as_it_was(caches):  # example 6
    before = _state(*caches)
    fetch = _fetcher()

    def failing(url: str) -> bytes:
        if "armSkuName" in url:
            raise PriceSourceError("cannot read https://prices.azure.com/api/retail/prices: HTTP 500")
        return fetch(url)

    with pytest.raises(PriceSourceError, match="500"):
        _refresh(*caches, failing)
    assert _state(*caches) == before


def test_symlinked_caches_stay_links(tmp_path, caches):
    real_prices, real_offers = caches
    (tmp_path / "links").mkdir()
    prices, cached_offers = tmp_path / "links" / "prices.json", tmp_path / "links" / "offers.json"
    prices.symlink_to(real_prices)
    cached_offers.symlink_to(Path("..") / "offers.json")
    _refresh(prices, cached_offers, _fetcher())
    assert prices.is_symlink() and cached_offers.is_symlink()
    assert json.loads(real_offers.read_text())["lists"] and stat.S_IMODE(real_offers.stat().st_mode) == 0o600


def test_the_offers_cache_may_not_be_the_price_cache(caches):
    prices, _ = caches
    before = _state(prices)
    with pytest.raises(PriceSourceError, match="is the price cache"):
        _refresh(prices, prices, _fetcher())
    assert _state(prices) == before


def test_one_deadline_ends_the_whole_refresh(tmp_path, caches, monkeypatch):  # example 5
    """Each offers query drips for 40 s; the refresh's one deadline (2 s here, 900 s in the product) ends it all."""
    cert = k.certificate(tmp_path)
    if cert is None:
        pytest.skip("no openssl for the price host's certificate")
    monkeypatch.setattr(refresh_module, "DEADLINE_SECONDS", 2.0)
    before = _state(*caches)
    with k.HostileProxy(k.mitm(price_host(offers=k.drip), cert)) as proxy:
        for name in ("HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        monkeypatch.setenv("SSL_CERT_FILE", str(cert[0]))
        start = time.monotonic()
        with pytest.raises(PriceSourceError, match="deadline"):
            _refresh(*caches, None)
        assert time.monotonic() - start < 6  # 2 s and the watchdog's shutdown; not 40 s per size
    assert _state(*caches) == before


def test_the_default_offers_cache_is_beside_the_price_cache(tmp_path, monkeypatch):  # example 6
    monkeypatch.delenv(offers.CACHE_VARIABLE)
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(tmp_path / "mine" / "prices.json"))
    assert offers.offers_cache_path() == tmp_path / "mine" / "offers.json"
    monkeypatch.delenv("GPUPOOLS_PRICE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert offers.offers_cache_path() == tmp_path / "xdg" / "gpupools" / "offers.json"


# --- the kit's all-or-none write ------------------------------------------------------------------------------------


def test_a_failing_second_rename_puts_the_first_file_back(tmp_path, monkeypatch):
    first, second, new = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    first.write_bytes(b"old a")
    first.chmod(0o600)
    second.write_bytes(b"old b")
    real_replace, calls = os.replace, []

    def replace(source, target):
        calls.append(Path(target).name)
        if Path(target) == second:
            raise OSError(28, "No space left on device")
        return real_replace(source, target)

    monkeypatch.setattr(atomic_file.os, "replace", replace)
    with pytest.raises(FileRefused, match="disk is full"):
        write_all_or_none([(new, b"new c", "cache"), (first, b"new a", "cache"), (second, b"new b", "cache")])
    assert calls[:3] == ["c", "a", "b"]  # then the put-back of a
    assert first.read_bytes() == b"old a" and stat.S_IMODE(first.stat().st_mode) == 0o600
    assert second.read_bytes() == b"old b" and not new.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]  # no temp file left


def test_a_failing_stage_writes_nothing(tmp_path):
    first = tmp_path / "a"
    first.write_bytes(b"old a")
    (tmp_path / "dir").mkdir()
    with pytest.raises(FileRefused, match="is a directory"):
        write_all_or_none([(first, b"new a", "cache"), (tmp_path / "dir", b"x", "cache")])
    assert first.read_bytes() == b"old a" and sorted(p.name for p in tmp_path.iterdir()) == ["a", "dir"]


# --- the value kinds and the offers cache reader --------------------------------------------------------------------


@pytest.mark.parametrize("value", list(HOSTILE_REGIONS.values()) + ["EastUS", "a", 7, None])
def test_a_region_is_refused_unless_it_has_a_regions_shape(value):
    assert REGION.problem(value) is not None


@pytest.mark.parametrize(
    "kind, good, bad",
    [
        (REGION, "westeurope", "west europe"),
        (SIZE, "Standard_ND96asr_v4", "Standard ND96"),
        (NAME, "Azure Retail Prices API, one query per size", "[x](javascript:alert(1))"),
        (NAME, "a copy (2023-2024)", "left\u202eright"),
        (NAME, "x" * 500, "x" * 501),
    ],
)
def test_each_kind_takes_its_shape_and_refuses_others(kind, good, bad):
    assert kind.problem(good) is None and kind.problem(bad) is not None
    assert kind.problem("") is not None


@pytest.mark.parametrize("value, ok", [(27.5, True), (0, False), (-1, False), (float("nan"), False), (1e8, False)])
def test_a_price_is_a_finite_number_above_zero_and_bounded(value, ok):
    assert (price_problem(value) is None) is ok


@pytest.mark.parametrize("region", list(HOSTILE_REGIONS.values()))
def test_an_offers_cache_with_a_hostile_region_is_not_used(tmp_path, monkeypatch, region):
    document = offers.snapshot_json(offers.packaged_offers())  # type: ignore[arg-type]
    document["lists"][0]["sizes"][next(iter(document["lists"][0]["sizes"]))].append(region)
    path = tmp_path / "offers.json"
    path.write_text(json.dumps(document))
    monkeypatch.setenv(offers.CACHE_VARIABLE, str(path))
    assert offers.offers_snapshot() == offers.packaged_offers()
