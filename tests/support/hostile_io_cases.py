"""Issue 36's cases on the ways in that write or read files, as data for ``support.hostile_runner``: the whole
Azure refresh (prices and offers) against a local HTTPS price host that answers as the Retail Prices API does or as
a hostile one, the offers cache's path, and a stack's ``gpupools:demand``.

Each case starts from a price cache and an offers cache already in place (``cache/gpupools``), so "nothing was
rewritten" is checked byte for byte, mode and links included, by the runner's snapshot.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from support import hostile_catalogue as k
from support.hostile_catalogue import Case

FULL_AZURE = ["prices", "refresh", "--cloud", "azure"]  # no --region: prices and offers, one transaction
PRICES = "cache/gpupools/prices.json"
OFFERS = "cache/gpupools/offers.json"
OLD_PRICES = b'{"format": "gpupools-prices/2", "currency": "USD", "retrieved": "2026-11-01", "prices": []}\n'
OLD_OFFERS = b'{"old": "offers, not read: only compared"}\n'


def offers_item(size: str, region: str, product: str = "Virtual Machines NDasrA100v4 Series") -> dict[str, Any]:
    """One pay-as-you-go meter of ``size`` in ``region``, in the Retail Prices API's documented shape (Linux unless
    ``product`` says Windows)."""
    return {
        "currencyCode": "USD",
        "retailPrice": 27.5,
        "unitPrice": 27.5,
        "armRegionName": region,
        "skuName": "ND96asr A100 v4",
        "productName": product,
        "serviceName": "Virtual Machines",
        "unitOfMeasure": "1 Hour",
        "type": "Consumption",
        "armSkuName": size,
    }


def _page(items: list[dict[str, Any]]) -> bytes:
    return json.dumps({"Items": items, "NextPageLink": None, "Count": len(items)}).encode()


def price_host(
    regions: Callable[[str], list[str]] = lambda size: ["eastus", "westeurope"], offers: k.Answer | None = None
) -> k.Answer:
    """The Retail Prices API: a region's price page (the recorded one) or, for a size query, a page of meters of that
    size in ``regions(size)``; ``offers`` answers the size queries instead when given."""

    def answer(tls: Any, path: str) -> None:
        query = unquote(path)
        if "armSkuName eq '" not in query:
            return k.ok(k.azure_page())(tls, path)
        if offers is not None:
            return offers(tls, path)
        size = query.split("armSkuName eq '")[1].split("'")[0]
        return k.ok(_page([offers_item(size, region) for region in regions(size)]))(tls, path)

    return answer


def _mitm(answer: k.Answer) -> Callable[[tuple[Path, Path]], Callable[[Any], None]]:
    return lambda cert: k.mitm(answer, cert)


def caches(extra: Callable[[Path], dict[str, str]] = lambda where: {}) -> Callable[[Path], dict[str, str]]:
    """Both caches in place, the offers cache private (0600), then ``extra``'s files and environment."""

    def prepare(where: Path) -> dict[str, str]:
        folder = where / "cache" / "gpupools"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "prices.json").write_bytes(OLD_PRICES)
        (folder / "offers.json").write_bytes(OLD_OFFERS)
        (folder / "offers.json").chmod(0o600)
        return extra(where)

    return prepare


def _planted(where: Path) -> dict[str, str]:
    """Example 1: ``d/offers.tmp`` a symlink to a user's file, a user's own ``.offers.json.tmp`` beside it."""
    (where / "victim.txt").write_text("mine\n")
    (where / "d").mkdir()
    (where / "d" / "offers.tmp").symlink_to(where / "victim.txt")
    (where / "d" / ".offers.json.tmp").write_text("also mine\n")
    return {"GPUPOOLS_OFFERS_CACHE": str(where / "d" / "offers.json")}


def _linked(where: Path) -> dict[str, str]:
    """A symlinked offers cache whose file is private."""
    (where / "real").mkdir()
    (where / "real" / "offers.json").write_text("{}\n")
    (where / "real" / "offers.json").chmod(0o600)
    (where / "d").mkdir()
    (where / "d" / "offers.json").symlink_to(where / "real" / "offers.json")
    return {"GPUPOOLS_OFFERS_CACHE": str(where / "d" / "offers.json")}


def _offers_at(name: Callable[[Path], str]) -> Callable[[Path], dict[str, str]]:
    return lambda where: {"GPUPOOLS_OFFERS_CACHE": name(where)}


def _under_a_file(where: Path) -> str:
    (where / "file").write_text("x")
    return str(where / "file" / "offers.json")


HOSTILE_REGIONS = {
    "escape sequence": "east\x1b[2Jus",
    "1,000 characters": "e" * 1000,
    "right-to-left override": "eastus\u202e",
    "markdown javascript link": "[x](javascript:alert(1))",
    "empty string": "",
}


def _refresh(name: str, extra=lambda where: {}, answer: k.Answer | None = None, **expect: Any) -> Case:
    """The full Azure refresh over both caches and ``extra``'s files, against ``answer`` (the good price host)."""
    return Case(name, "io-refresh", FULL_AZURE, caches(extra), proxy=_mitm(answer or price_host()), **expect)


def refresh_cases() -> list[Case]:
    ok = frozenset({0})
    refused = frozenset({2})
    return [
        _refresh("good full refresh", codes=ok, may_change=(PRICES, OFFERS)),
        _refresh("planted offers.tmp symlink", _planted, codes=ok, may_change=(PRICES, "d/offers.json")),
        _refresh("symlinked private offers cache", _linked, codes=ok, may_change=(PRICES, "real/offers.json")),
        _refresh(
            "offers query answers 500",
            answer=price_host(offers=k.status("HTTP/1.1 500 Internal Server Error")),
            codes=refused,
            says="500",
        ),
        _refresh(
            "offers query not JSON",
            answer=price_host(offers=k.ok(b"<html>")),
            codes=refused,
            says="not a complete JSON",
        ),
    ] + [
        _refresh(
            f"offers region: {name}",
            answer=price_host(lambda size, region=region: ["eastus", region]),
            codes=refused,
            says="armRegionName",
        )
        for name, region in HOSTILE_REGIONS.items()
    ]


def path_cases() -> list[Case]:
    good = _mitm(price_host())
    return [
        Case(
            f"GPUPOOLS_OFFERS_CACHE {label}",
            "io-path",
            FULL_AZURE,
            caches(_offers_at(name)),
            proxy=good,
            codes=frozenset({2}),
            says=says,
        )
        for label, name, says in (
            ("is /", lambda w: "/", "is a directory"),
            ("is a folder", lambda w: str(w), "is a directory"),
            ("under a file", _under_a_file, "not a directory"),
            ("5,000 characters", lambda w: str(w / ("o" * 5000)), "too long"),
        )
    ]


def _demand_stack(
    demand: str, make: Callable[[Path], object] = lambda folder: None
) -> Callable[[Path], dict[str, str]]:
    """The EKS stack in the project folder naming ``demand``, the example demand file beside it, ``make``'s files."""

    def prepare(where: Path) -> dict[str, str]:
        stack = k.edited_stack(where, lambda config: config.update({"gpupools:demand": demand}), "eks")
        (where / "project" / "demand.yaml").write_bytes((k.ROOT / "examples" / "demand.yaml").read_bytes())
        make(where / "project")
        stack.rename(stack.with_name("Pulumi.dev.yaml"))
        return {}

    return prepare


def _bad_demand(folder: Path) -> None:
    """A demand file inside the project whose one workload asks for no replicas."""
    (folder / "bad.yaml").write_text("cloud: aws\nregion: us-east-1\nworkloads: [{name: a, count: 0, gpu: whole}]\n")


# (case, the stack's ``gpupools:demand``, the files made in the project, what the error names; "" for exit 0)
DEMANDS: list[tuple[str, str, Callable[[Path], object], str]] = [
    ("demand /etc/passwd by ..", "../../../../../../etc/passwd", lambda f: None, "gpupools:demand"),
    ("demand /proc/self/environ by ..", "../../../../../../proc/self/environ", lambda f: None, "gpupools:demand"),
    (
        "demand a symlink out",
        "link.yaml",
        lambda f: (f / "link.yaml").symlink_to("/etc/hostname"),
        "outside the project",
    ),
    ("demand a FIFO", "fifo.yaml", lambda f: os.mkfifo(f / "fifo.yaml"), "is a FIFO"),
    ("demand a folder", "sub", lambda f: (f / "sub").mkdir(), "is a directory"),
    ("demand a bad field", "bad.yaml", _bad_demand, "workloads"),
    ("demand in the project", "demand.yaml", lambda f: None, ""),
]


def demand_cases() -> list[Case]:
    return [
        Case(
            f"{command}: {name}",
            "io-demand",
            [command, "--config", "{dir}/project/Pulumi.dev.yaml"],
            _demand_stack(demand, make),
            codes=frozenset({2} if says else {0}),
            says=says,
        )
        for command in ("check", "plan")
        for name, demand, make, says in DEMANDS
    ]


def io_cases() -> list[Case]:
    return refresh_cases() + path_cases() + demand_cases()
