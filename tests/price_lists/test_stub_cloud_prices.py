"""``gpupools prices refresh`` on the stub third cloud (tests/resolve/test_stub_cloud.py): refused by name before
any fetch, never read with another cloud's price list."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gpupools.catalog.cloud import Cloud, CloudNotSupported
from gpupools.catalog.cloud_registry import register, unregister
from gpupools.price_lists.refresh import refresh_caches


@pytest.fixture
def gke() -> Iterator[Cloud]:
    stub = register(Cloud(name="gke", display_name="Google Cloud", region_field="region"))
    yield stub
    unregister("gke")


def test_refreshing_the_stubs_prices_is_refused_before_any_fetch(gke, tmp_path):
    fetched: list[str] = []

    def fetcher(url: str) -> bytes:
        fetched.append(url)
        return b"{}"

    with pytest.raises(CloudNotSupported, match="^refreshing prices is not supported on gke$"):
        refresh_caches(["gke"], None, fetcher=fetcher, path=tmp_path / "prices.json")
    assert fetched == []
    assert not (tmp_path / "prices.json").exists()
