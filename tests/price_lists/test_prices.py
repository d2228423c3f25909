"""The price loaders on recorded responses (tests/price_lists/recorded_prices, in the documented formats), the
cache they write, and the packaged snapshot: which meters count, paging, one clear error for a bad response."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from importlib.resources import files
from pathlib import Path

import pytest

from gpupools.catalog.instances import CLOUDS, INSTANCE_SIZES
from gpupools.catalog.prices import snapshot
from gpupools.cli import main
from gpupools.price_lists import aws, azure
from gpupools.price_lists.book import current_price_book
from gpupools.price_lists.errors import PriceSourceError
from gpupools.price_lists.refresh import refresh_caches
from support.cli import run_cli

RECORDED = Path(__file__).parent / "recorded_prices"
PAGE1, PAGE2 = (RECORDED / "azure_page1.json").read_bytes(), (RECORDED / "azure_page2.json").read_bytes()
OFFER = (RECORDED / "aws_offer_us-east-1.json").read_bytes()
STACK_REGIONS = {"azure": {"southcentralus", "eastus"}, "aws": {"us-east-1"}}
REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = json.loads(files("gpupools.catalog").joinpath("price_snapshot.json").read_text(encoding="utf-8"))


def _azure_server(pages: list[bytes]):
    """A fetch that serves ``pages`` in order and records the URLs asked for."""
    asked: list[str] = []

    def fetch(url: str) -> bytes:
        asked.append(url)
        return pages[len(asked) - 1]

    return fetch, asked


def test_azure_follows_next_page_link_and_keeps_linux_pay_as_you_go_and_spot() -> None:
    fetch, asked = _azure_server([PAGE1, PAGE2])
    prices = azure.load(fetch, "southcentralus", "2026-11-20T00:00:00Z")
    assert asked[0] == azure.query_url("southcentralus")
    assert asked[1] == json.loads(PAGE1)["NextPageLink"]  # page 2 came from the link, and nothing after it
    got = {(p.size, p.capacity): p.per_hour for p in prices}
    # Windows (31.25), the reservation (150000), Low Priority (5.5) and DevTestConsumption (20.0) are left out.
    assert got == {
        ("Standard_ND96asr_v4", "onDemand"): 27.5,
        ("Standard_ND96asr_v4", "spot"): 8.25,
        ("Standard_NC24ads_A100_v4", "onDemand"): 3.75,
    }
    assert {p.source for p in prices} == {azure.query_url("southcentralus")}
    assert "armRegionName%20eq%20%27southcentralus%27" in asked[0] and "Consumption" in asked[0]


def test_azure_keeps_only_the_sizes_asked_for() -> None:
    fetch, _ = _azure_server([PAGE1, PAGE2])
    prices = azure.load(fetch, "southcentralus", "t", sizes=["Standard_NC24ads_A100_v4"])
    assert [(p.size, p.per_hour) for p in prices] == [("Standard_NC24ads_A100_v4", 3.75)]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (PAGE1[: len(PAGE1) // 2], "not a complete JSON page"),
        (b'{"Items": [], "Count": 3, "NextPageLink": null}', "'Count' is 3 but the page holds 0 items"),
        (b'{"items": []}', "no 'Items' list"),
        (json.dumps({"Items": [{"armSkuName": "Standard_ND96asr_v4"}], "Count": 1}).encode(), "Items[0] lacks"),
        (json.dumps({"Items": [], "NextPageLink": "https://example.com/x"}).encode(), "does not lead to"),
    ],
)
def test_azure_refuses_a_malformed_or_truncated_page_with_one_error(body: bytes, says: str) -> None:
    fetch, _ = _azure_server([body])
    with pytest.raises(PriceSourceError) as error:
        azure.load(fetch, "southcentralus", "t")
    assert says in str(error.value) and "\n" not in str(error.value)


def test_azure_keeps_only_the_region_asked_for() -> None:
    """A meter of another region in the answer (the filter names one) is not that region's price, nor cached."""
    page = json.loads(PAGE1)
    page["Items"][0]["armRegionName"] = "South Central US"  # a display name, not the armRegionName asked for
    fetch, _ = _azure_server([json.dumps({**page, "NextPageLink": None}).encode()])
    assert azure.load(fetch, "southcentralus", "t") == []


def test_azure_refuses_a_price_that_is_not_a_number() -> None:
    page = json.loads(PAGE2)
    page["Items"][0]["retailPrice"] = "8.25"
    fetch, _ = _azure_server([json.dumps(page).encode()])
    with pytest.raises(PriceSourceError, match=r"Items\[0\]\.retailPrice '8.25' is not a number"):
        azure.load(fetch, "southcentralus", "t")


def test_aws_offer_file_on_demand_linux_shared_only() -> None:
    prices = aws.parse(OFFER, "us-east-1", "t")
    # Windows (24.9), dedicated tenancy (22.6), the reservation row (capacitystatus, 0), Reserved terms (12.0) and
    # the Capacity Block rows listed first (marketoption CapacityBlock, $0.00; p5e has only that) are left out; the
    # figures are the file's, unchanged.
    assert [(p.size, p.region, p.capacity, p.per_hour) for p in prices] == [
        ("g5.xlarge", "us-east-1", "onDemand", 1.25),
        ("p4d.24xlarge", "us-east-1", "onDemand", 20.5),
    ]
    assert prices[0].source == aws.offer_url("us-east-1")


@pytest.mark.parametrize("fee", ["0.0000000000", "4.2000000000"])
def test_aws_never_takes_a_capacity_block_row_as_a_price(fee: str) -> None:
    """Capacity Block reservation fees are set at purchase; whatever figure a CapacityBlock row carries (the Linux
    rows carry $0.00) is not the size's on-demand price."""
    offer = json.loads(OFFER)
    offer["terms"]["OnDemand"]["SKU8P5EBLOCK"]["SKU8P5EBLOCK.JRTCKXETXF"]["priceDimensions"][
        "SKU8P5EBLOCK.JRTCKXETXF.6YS6EN2CT7"
    ]["pricePerUnit"]["USD"] = fee
    assert "p5e.48xlarge" not in {p.size for p in aws.parse(json.dumps(offer).encode(), "us-east-1", "t")}


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (OFFER[:5000], "not a complete JSON offer file"),
        (b'{"products": {}}', "needs 'products' and 'terms.OnDemand'"),
        (
            json.dumps(
                {
                    "products": {
                        "S": {
                            "productFamily": "Compute Instance",
                            "attributes": {
                                "instanceType": "g5.xlarge",
                                "operatingSystem": "Linux",
                                "tenancy": "Shared",
                                "preInstalledSw": "NA",
                                "capacitystatus": "Used",
                            },
                        }
                    },
                    "terms": {"OnDemand": {"S": {"a": {"priceDimensions": {}}}}},
                }
            ).encode(),
            "terms.OnDemand[S] is not one offer with one hourly USD price",
        ),
    ],
)
def test_aws_refuses_a_malformed_or_truncated_offer_file(body: bytes, says: str) -> None:
    with pytest.raises(PriceSourceError) as error:
        aws.parse(body, "us-east-1", "t")
    assert says in str(error.value) and "\n" not in str(error.value)


def test_refresh_writes_a_cache_that_plans_read_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = iter([PAGE1, PAGE2])
    path = tmp_path / "prices.json"
    now = datetime(2026, 11, 20, tzinfo=timezone.utc)
    done = refresh_caches(["azure"], "southcentralus", fetcher=lambda url: next(pages), now=now, path=path)
    fresh, dropped = done.fresh, done.dropped
    assert dropped == 0
    cache = json.loads(path.read_text())
    assert cache["currency"] == "USD" and cache["retrieved"] == "2026-11-20T00:00:00Z"
    assert {entry["source"] for entry in cache["prices"]} == {azure.query_url("southcentralus")}
    assert len(fresh) == 3
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(path))
    book = current_price_book()
    assert book.origin.startswith(f"cache {path} (refreshed 2026-11-20T00:00:00Z), then snapshot")
    assert book.lookup("Standard_ND96asr_v4", "southcentralus", "onDemand").per_hour == 27.5
    assert book.lookup("p4d.24xlarge", "us-east-1", "onDemand").source.startswith("https://")  # the snapshot's


def test_refresh_without_network_is_one_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(tmp_path / "prices.json"))
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")  # nothing listens: the request fails at once
    result = run_cli("prices", "refresh", "--cloud", "aws", "--region", "us-east-1")
    assert result.code == 2 and result.out == ""  # as verify's unreachable cluster; 1 is kept for a gpupools bug
    [line] = result.err.splitlines()
    assert line.startswith("error: cannot read https://pricing.us-east-1.amazonaws.com/") and "snapshot" in line
    assert not (tmp_path / "prices.json").exists()


_BOOK = {"format": "gpupools-prices/2", "currency": "USD", "retrieved": "2026-11-20T00:00:00Z", "prices": []}
_PRICE = {
    "cloud": "azure",
    "size": "Standard_ND96asr_v4",
    "region": "southcentralus",
    "capacity": "onDemand",
    "perHour": 27.5,
    "source": "https://prices.azure.com/api/retail/prices",
    "retrieved": "2026-11-20",
}
_OLD_PRICE = {**{k: v for k, v in _PRICE.items() if k != "perHour"}, "usdPerHour": 27.5}


@pytest.mark.parametrize(
    ("book", "says"),
    [
        ({**_BOOK, "format": "other"}, 'not a gpupools price book (expected "format": "gpupools-prices/2")'),
        ({**_BOOK, "prices": [{**_PRICE, "perHour": 0}]}, "prices[0]: perHour 0 is not a price above 0"),
        ({**_BOOK, "currency": "eur"}, "currency 'eur' is not an ISO 4217 code"),
        ({**_BOOK, "format": "gpupools-prices/1", "currency": "EUR"}, "a gpupools-prices/1 price book is in USD only"),
        ({**_BOOK, "format": "gpupools-prices/1", "prices": [_PRICE]}, "prices[0]: usdPerHour None is not a price"),
        (
            {**_BOOK, "prices": [{**_PRICE, "capacity": "reserved"}]},
            "prices[0]: capacity 'reserved'; allowed: onDemand, spot, capacityBlock",
        ),
        (
            {**_BOOK, "unlisted": [{"cloud": "aws", "size": "p5e.48xlarge", "capacity": "onDemand", "why": "w"}]},
            "unlisted[0] lacks source",
        ),
        ({**_BOOK, "unlisted": {"p5e.48xlarge": "w"}}, "'unlisted' is not a list"),
        # Text that reaches the terminal and the pull request's Markdown table: no cell breaks, markup or escapes.
        (
            {**_BOOK, "prices": [{**_PRICE, "source": "https://x|<b>y</b>"}]},
            "prices[0]: source 'https://x|<b>y</b>' is not the shape of a source",
        ),
        ({**_BOOK, "prices": [{**_PRICE, "region": "south central"}]}, "region 'south central' is not the shape"),
        ({**_BOOK, "retrieved": "2026\x1b[2J"}, "'retrieved' '2026\\x1b[2J' is not a date"),
        (
            {
                **_BOOK,
                "unlisted": [
                    {
                        "cloud": "aws",
                        "size": "p5e.48xlarge",
                        "capacity": "onDemand",
                        "why": "a\u202eb",
                        "source": "https://x",
                    }
                ],
            },
            "unlisted[0]: why",
        ),
    ],
)
def test_a_price_cache_that_is_not_a_price_book_stops_the_plan_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, book: dict, says: str
) -> None:
    """A wrong or partial price must not reach a plan: exit 2 (the user's file), one line naming it and the fix."""
    cache = tmp_path / "prices.json"
    cache.write_text(json.dumps(book))
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(cache))
    monkeypatch.chdir(REPO)
    run = run_cli("plan", "--stack", "dev")
    assert run.code == 2 and says in run.err and str(cache) in run.err, run.err
    assert len(run.err.strip().splitlines()) == 1 and "gpupools prices refresh" in run.err


def test_a_cache_keeps_the_snapshots_word_on_sizes_without_a_list_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "prices.json"
    cache.write_text(json.dumps({**_BOOK, "prices": [_PRICE]}))
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(cache))
    book = current_price_book()
    assert book.lookup("Standard_ND96asr_v4", "southcentralus", "onDemand").per_hour == 27.5
    assert book.why_unlisted("p5e.48xlarge", "onDemand") == snapshot().why_unlisted("p5e.48xlarge", "onDemand")


def test_snapshot_has_a_source_and_date_for_every_price_and_no_zero() -> None:
    book = snapshot()
    assert book.currency == "USD" and book.prices
    for price in book.prices:
        assert price.size in INSTANCE_SIZES and INSTANCE_SIZES[price.size].cloud == price.cloud
        assert price.source.startswith("https://") and len(price.retrieved) == 10 and price.per_hour > 0
    # At least one priced size in a region the repository's stacks or examples use, per cloud.
    for cloud, regions in STACK_REGIONS.items():
        assert any(p.cloud == cloud and p.region in regions for p in book.prices), cloud


def test_snapshot_prices_every_catalog_size_and_says_why_where_a_cloud_lists_none() -> None:
    """Coverage: every catalog size has a sourced price in at least one region; each has an on-demand price or an
    'unlisted' entry saying, with its source, that the cloud publishes none (p5e is sold as Capacity Blocks), never
    both; a plan for such a pool shows that reason, not a bare "unknown"."""
    book = snapshot()
    catalog = {(size.cloud, name) for name, size in INSTANCE_SIZES.items()}
    assert {c for c, _ in catalog} == set(CLOUDS)
    assert sorted(catalog - {(p.cloud, p.size) for p in book.prices}) == []
    on_demand = {(p.cloud, p.size) for p in book.prices if p.capacity == "onDemand"}
    unlisted = {(u.cloud, u.size) for u in book.unlisted if u.capacity == "onDemand"}
    assert not on_demand & unlisted and sorted(catalog - on_demand - unlisted) == []
    assert unlisted == {("aws", "p5e.48xlarge")}
    why = book.why_unlisted("p5e.48xlarge", "onDemand")
    assert why is not None and "Capacity Blocks" in why.why
    assert book.lookup("p5e.48xlarge", "us-east-2", "capacityBlock") is not None


def test_snapshot_sources_are_described_pinned_and_consistent() -> None:
    """Every figure's and every 'unlisted' entry's source is described under 'sources' (what the file is, what is
    known of its date); a repository file is cited at a fixed commit; one price per size, region and capacity; a
    Spot price sits beside the same size's on-demand price and below it; Capacity Blocks are AWS's."""
    described = {source["url"]: source for source in SNAPSHOT["sources"]}
    assert all(source["what"] and source["dataDate"] and source["read"] for source in described.values())
    book = snapshot()
    assert {p.source for p in book.prices} | {u.source for u in book.unlisted} == set(described)
    for url in described:
        if url.startswith("https://github.com/"):
            assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/blob/[0-9a-f]{40}/\S+", url), url
    keys = [(p.size, p.region, p.capacity) for p in book.prices]
    assert len(keys) == len(set(keys))
    for price in book.prices:
        assert price.capacity != "capacityBlock" or price.cloud == "aws", price.size
        if price.capacity == "spot":
            on_demand = book.lookup(price.size, price.region, "onDemand")
            assert on_demand is not None and price.per_hour < on_demand.per_hour, price.size


def test_plan_dev_prices_the_dev_pool_with_source_and_date(monkeypatch: pytest.MonkeyPatch) -> None:
    """`gpupools plan --stack dev` on the repository's own Pulumi.dev.yaml (Standard_ND96asr_v4, southcentralus,
    MIG1g: 7 x 8 = 56 slices of nvidia.com/gpu per node)."""
    monkeypatch.chdir(REPO)
    price = snapshot().lookup("Standard_ND96asr_v4", "southcentralus", "onDemand")
    assert price is not None
    run = run_cli("plan", "--stack", "dev")
    assert run.code == 0, run.err
    [line] = [line for line in run.out.splitlines() if line.startswith("  pool mig1g (Standard_ND96asr_v4, ")]
    node = price.per_hour
    assert f"${node:,.2f}/h per node" in line and f"${node * 730:,.2f}/month" in line
    assert f"nvidia.com/gpu ${node / 56:,.4f}/slice-h" in line
    assert f"price: {price.source} (retrieved {price.retrieved})" in line


def test_a_cache_from_an_earlier_release_is_still_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "prices.json"
    cache.write_text(json.dumps({**_BOOK, "format": "gpupools-prices/1", "prices": [_OLD_PRICE]}))
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(cache))
    assert current_price_book().lookup("Standard_ND96asr_v4", "southcentralus", "onDemand").per_hour == 27.5


def _eur_page() -> bytes:
    """The first recorded page as the API answers ``currencyCode='EUR'``: the same meters, in EUR, one page."""
    page = json.loads(PAGE1)
    for item in page["Items"]:
        item["currencyCode"] = "EUR"
    return json.dumps({**page, "BillingCurrency": "EUR", "NextPageLink": None}).encode()


def test_refresh_in_another_currency_asks_for_it_and_the_plan_shows_it_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The currency is USD unless configured: --currency EUR asks Azure for EUR, replaces a USD cache whole, and
    the plan prices in EUR from the cache without adding the USD snapshot to it."""
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({**_BOOK, "prices": [{**_PRICE, "region": "eastus"}]}))
    fetch, asked = _azure_server([_eur_page()])
    done = refresh_caches(["azure"], "southcentralus", fetcher=fetch, path=path, currency="EUR")
    fresh, dropped = done.fresh, done.dropped
    assert "currencyCode='EUR'" in asked[0] and dropped == 1
    assert [(p.size, p.per_hour) for p in fresh] == [("Standard_ND96asr_v4", 27.5)]  # Windows, Reservation left out
    assert json.loads(path.read_text())["currency"] == "EUR"
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(path))
    monkeypatch.chdir(REPO)
    plan = run_cli("plan", "--stack", "dev")
    assert plan.code == 0, plan.err
    assert "List prices in EUR from cache " in plan.out and "the USD snapshot is not used" in plan.out
    assert "27.50 EUR/h per node" in plan.out and "nvidia.com/gpu 0.4911 EUR/slice-h" in plan.out
    markdown = run_cli("plan", "--stack", "dev", "--format", "markdown").out
    assert "| EUR/h per node | EUR/h | EUR/month | EUR/slice-h |" in markdown
    assert "| 27.50 EUR | 27.50 EUR |" in markdown
    eks = run_cli("plan", "--stack", "eks")  # AWS prices exist only in the USD snapshot: not mixed in
    assert "total: unknown" in eks.out


def test_a_currency_azure_does_not_answer_in_is_one_error_not_an_empty_cache(tmp_path: Path) -> None:
    fetch, _ = _azure_server([PAGE1, PAGE2])  # the API's answer in USD, whatever was asked
    with pytest.raises(PriceSourceError) as error:
        refresh_caches(["azure"], "southcentralus", fetcher=fetch, path=tmp_path / "prices.json", currency="XYZ")
    assert "asked for XYZ, it answered in USD" in str(error.value) and not (tmp_path / "prices.json").exists()


def test_a_diff_across_currencies_is_unknown_not_a_wrong_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    base = tmp_path / "base.json"
    base.write_text(run_cli("plan", "--stack", "dev", "--json").out)  # the USD snapshot
    cache = tmp_path / "prices.json"
    cache.write_text(json.dumps({**_BOOK, "currency": "EUR", "prices": [_PRICE]}))
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(cache))
    run = run_cli("plan", "--stack", "dev", "--base", str(base))
    assert run.out.splitlines()[0].endswith(
        "cost change unknown (no price for base plan (priced in USD, this one in EUR))"
    ), run.out.splitlines()[0]
    assert "  cost total: unknown (base plan (priced in USD, this one in EUR))" in run.out.splitlines()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--currency", "EUR"], "error: --currency EUR: AWS publishes its EC2 price list in USD only"),
        (
            ["--cloud", "aws", "--currency", "EUR"],
            "error: --currency EUR: AWS publishes its EC2 price list in USD only",
        ),
    ],
)
def test_refresh_refuses_a_currency_it_cannot_deliver_before_going_online(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], says: str
) -> None:
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(tmp_path / "prices.json"))
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")  # a request would fail with another message
    run = run_cli("prices", "refresh", *argv)
    assert run.code == 2 and says in run.err and len(run.err.strip().splitlines()) == 1, run.err
    assert not (tmp_path / "prices.json").exists()


def test_refresh_refuses_a_currency_that_is_not_a_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["prices", "refresh", "--currency", "euro"])
    assert exited.value.code == 2 and "'euro' is not a currency code" in capsys.readouterr().err
