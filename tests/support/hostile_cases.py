"""Issue 25's hostile catalogue, case by case (``hostile_catalogue`` holds the kinds of case and the servers).

Groups follow the issue's list: ``refresh`` (a hostile HTTPS proxy, and answers from it as the price host),
``refresh-path`` (where refresh writes), ``cache`` (a hostile price cache under a plan), ``program`` (a user's
``Pulumi.yaml`` project), ``base`` (a base plan's cost and DRA sections), ``provider`` (Construct with hostile
args), ``verify`` (hostile ResourceSlices) and ``gaps`` (what a new user met); issue 36's file ways in
(``io-refresh``, ``io-path``, ``io-demand``) are ``hostile_io_cases``'.
"""

from __future__ import annotations

import json
import os

from collections.abc import Callable
from pathlib import Path
from typing import Any


from support import hostile_catalogue as k
from support.hostile_catalogue import BASE, DEVICE, Case
from support.hostile_io_cases import io_cases
from support.hostile_verify import verify_cases

PLAN = ["plan", "--config", "{dir}/project/Pulumi.dev.yaml"]
AWS = ["prices", "refresh", "--cloud", "aws", "--region", "us-east-1"]
AZURE = ["prices", "refresh", "--cloud", "azure", "--region", "eastus"]
CACHE = "cache/gpupools/prices.json"
Proxy = Callable[[tuple[Path, Path]], Callable[[Any], None]]


def _mitm(answer: k.Answer) -> Proxy:
    return lambda cert: k.mitm(answer, cert)


def _raw(data: bytes) -> Proxy:
    return lambda cert: k._sent(data)


def refresh_cases() -> list[Case]:
    said = "cannot read https://"
    cases = [
        Case(
            "proxy answers 403 with ESC and C1", "refresh", AWS, proxy=_raw(b"HTTP/1.1 403 \x1b[31mNo\xc2\x9b\r\n\r\n")
        ),
        Case("proxy garbage status line", "refresh", AWS, proxy=_raw(b"SSH-2.0-OpenSSH_9.6\r\n\r\n"), says=said),
        Case("proxy closes at once", "refresh", AWS, proxy=_raw(b""), says=said),
        Case("proxy speaks plain http", "refresh", AWS, proxy=_raw(b"HTTP/1.1 200 OK\r\n\r\nhello"), says=said),
        Case("proxy never answers", "refresh", AWS, proxy=lambda cert: k._silent, slow=True),
        Case(
            "good offer file",
            "refresh",
            AWS,
            proxy=_mitm(k.ok(k.aws_offer())),
            codes=frozenset({0}),
            may_change=(CACHE,),
        ),
        Case("price NaN (bare)", "refresh", AWS, proxy=_mitm(k.ok(k.aws_offer_number("NaN")))),
        Case("price Infinity (bare)", "refresh", AWS, proxy=_mitm(k.ok(k.aws_offer_number("Infinity")))),
        Case("price 1e309 (bare)", "refresh", AWS, proxy=_mitm(k.ok(k.aws_offer_number("1e309")))),
        Case("price 5000 digits", "refresh", AWS, proxy=_mitm(k.ok(k.aws_offer_number("9" * 5000)))),
        Case("price 'NaN'", "refresh", AWS, proxy=_mitm(k.ok(k.aws_offer("NaN")))),
        Case("price '1e308'", "refresh", AWS, proxy=_mitm(k.ok(k.aws_offer("1e308")))),
        Case("region with ESC", "refresh", AWS, proxy=_mitm(k.ok(k.aws_offer(region="us-east-1\x1b[2J\x85")))),
        Case("nesting 100000 deep", "refresh", AWS, proxy=_mitm(k.ok(k.nested(100_000)))),
        Case(
            "short body",
            "refresh",
            AWS,
            proxy=_mitm(k.raw(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{}")),
            says=said,
        ),
        Case("redirect to http", "refresh", AWS, proxy=_mitm(k.status("HTTP/1.1 302 Found", "Location: http://x/a"))),
        Case("500 with ESC reason", "refresh", AWS, proxy=_mitm(k.status("HTTP/1.1 500 \x1b]0;pwn\x07\x85 oops"))),
        Case("garbage status from the host", "refresh", AWS, proxy=_mitm(k.status("HTTP/1.1 abc def"))),
        Case("gzip bomb", "refresh", AWS, proxy=_mitm(k.ok(k.gzip_bomb(), "Content-Encoding: gzip"))),
        Case("drips its body", "refresh", AWS, proxy=_mitm(k.drip), slow=True),
        Case("azure page of 20 MB", "refresh", AZURE, proxy=_mitm(k.flood(20))),
        Case("azure not JSON", "refresh", AZURE, proxy=_mitm(k.ok(b"<html>\x1b[2J</html>"))),
        Case(
            "azure next page with a space",
            "refresh",
            AZURE,
            proxy=_mitm(k.ok(k.azure_page(lambda p: p.update(NextPageLink=f"{_api()}?$skip=a b")))),
        ),
        Case(
            "azure next page non-ASCII",
            "refresh",
            AZURE,
            proxy=_mitm(k.ok(k.azure_page(lambda p: p.update(NextPageLink=f"{_api()}?$skip=\u00e9")))),
        ),
        Case(
            "azure currency with ESC",
            "refresh",
            AZURE,
            proxy=_mitm(k.ok(k.azure_page(lambda p: [i.update(currencyCode="\x1b[2JUSD") for i in p["Items"]]))),
        ),
        Case("--region with a space", "refresh", [*AWS[:-1], "us east"], says="--region"),
        Case("--region non-ASCII", "refresh", [*AWS[:-1], "\u0113ast\u0085"], says="--region"),
        Case("--currency ESC", "refresh", ["prices", "refresh", "--cloud", "azure", "--currency", "\x1b[31m"]),
    ]
    return cases


def _api() -> str:
    return "https://prices.azure.com/api/retail/prices"


def _victim(where: Path) -> dict[str, str]:
    (where / "cache" / "gpupools").mkdir(parents=True)
    (where / "victim.txt").write_text("mine\n")
    (where / "cache" / "gpupools" / "prices.tmp").symlink_to(where / "victim.txt")
    (where / "cache" / "gpupools" / ".prices.json.tmp").write_text("also mine\n")
    return {}


def _linked_notes(where: Path) -> dict[str, str]:
    (where / "cache" / "gpupools").mkdir(parents=True)
    (where / "notes.txt").write_text("my notes\n")
    (where / "cache" / "gpupools" / "prices.json").symlink_to(where / "notes.txt")
    return {}


def _parent_file(where: Path) -> str:
    (where / "file").write_text("x")
    return str(where / "file" / "prices.json")


def path_cases() -> list[Case]:
    good = _mitm(k.ok(k.aws_offer()))
    return [
        Case("cache path is a directory", "refresh-path", AWS, k.cache_at(lambda w: str(w)), says="is a directory"),
        Case("cache path is /", "refresh-path", AWS, k.cache_at(lambda w: "/"), says="is a directory"),
        Case("cache parent is a file", "refresh-path", AWS, k.cache_at(_parent_file), says="not a directory"),
        Case("cache name too long", "refresh-path", AWS, k.cache_at(lambda w: str(w / ("n" * 300))), says="too long"),
        Case("XDG_CACHE_HOME 5000 chars", "refresh-path", AWS, lambda w: {"XDG_CACHE_HOME": str(w / ("x" * 5000))}),
        Case("planted prices.tmp symlink", "refresh-path", AWS, _victim, proxy=good, may_change=(CACHE,)),
        Case("cache linked to user notes", "refresh-path", AWS, _linked_notes, proxy=good, says="left as it was"),
    ]


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _sparse(path: Path) -> None:
    with path.open("wb") as handle:
        handle.truncate(400 << 20)


def _source(book: dict) -> None:
    book["prices"][0]["source"] = "https://x/[a](javascript:alert(1))"


def _price(value: Any) -> Callable[[dict], None]:
    return lambda book: book["prices"][0].update(perHour=value)


def cache_cases() -> list[Case]:
    md = [*PLAN, "--format", "markdown"]
    json_plan = [*PLAN, "--json"]
    eks = ["plan", "--config", "{dir}/project/Pulumi.eks.yaml", "--json"]

    def eks_cache(content: Any) -> Callable[[Path], dict[str, str]]:
        def prepare(where: Path) -> dict[str, str]:
            k.project(where, "eks")
            return k.cache(content)(where)

        return prepare

    return [
        Case("cache NaN literal", "cache", eks, eks_cache(b'{"format": "gpupools-prices/2", "prices": [NaN]}')),
        Case("cache price 1e308", "cache", eks, eks_cache(k.poisoned_cache(_price(1e308)))),
        Case("cache price -1", "cache", eks, eks_cache(k.poisoned_cache(_price(-1)))),
        Case("cache markdown source", "cache", md, k.cache(k.poisoned_cache(_source))),
        Case(
            "cache region ESC",
            "cache",
            eks,
            eks_cache(k.poisoned_cache(lambda b: b["prices"][0].update(region="\x1b[2J"))),
        ),
        Case("cache 100000 deep", "cache", json_plan, k.cache(k.nested(100_000))),
        Case("cache 5000-digit int", "cache", json_plan, k.cache(b'{"format": ' + b"9" * 5000 + b"}")),
        Case("cache sparse 400 MB", "cache", json_plan, k.cache(_sparse)),
        Case("cache is a directory", "cache", json_plan, k.cache(lambda p: p.mkdir())),
        Case("cache is a FIFO", "cache", json_plan, k.cache(_fifo)),
        Case("cache links to /dev/zero", "cache", json_plan, k.cache(_dev_zero)),
        Case("cache not UTF-8", "cache", json_plan, k.cache(b'{"format": "\xff\xfe"}')),
        Case(
            "XDG_CACHE_HOME 5000 chars, plan",
            "cache",
            json_plan,
            _with_project({"XDG_CACHE_HOME": "/" + "x" * 5000}),
            codes=frozenset({0}),
        ),
        Case(
            "XDG_CACHE_HOME is a file, plan",
            "cache",
            json_plan,
            lambda w: {"XDG_CACHE_HOME": str(k.project(w))},
            codes=frozenset({0}),
        ),
    ]


def program_cases() -> list[Case]:
    plan = [*PLAN, "--json"]
    return [
        Case(
            "program raises",
            "program",
            plan,
            k.own_program(b"raise RuntimeError('no quota \\x1b[2J')\n"),
            says="deploy.py:1",
        ),
        Case("program SyntaxError", "program", plan, k.own_program(b"def f(:\n"), says="SyntaxError"),
        Case("program not UTF-8", "program", plan, k.own_program(b"x = '\xff'\n"), says="UTF-8"),
        Case(
            "program sys.exit(0) and print",
            "program",
            plan,
            k.own_program(b"import sys\nprint('hi')\nsys.exit(0)\n"),
            codes=frozenset({0}),
        ),
        Case("program sys.exit(7)", "program", plan, k.own_program(b"import sys\nsys.exit(7)\n"), codes=frozenset({2})),
        Case("program recurses forever", "program", plan, k.own_program(b"def f():\n    return f()\nf()\n")),
        Case("Pulumi.yaml is a directory", "program", plan, k.odd_pulumi_yaml(lambda p: p.mkdir()), says="Pulumi.yaml"),
        Case("Pulumi.yaml is a FIFO", "program", plan, k.odd_pulumi_yaml(_fifo), says="Pulumi.yaml"),
        Case("Pulumi.yaml links to /dev/zero", "program", plan, k.odd_pulumi_yaml(_dev_zero), says="Pulumi.yaml"),
    ]


def _cost(pools: Any) -> dict:
    return {**BASE, "cost": {"pools": pools}}


def base_cases() -> list[Case]:
    plan = [*PLAN, "--base", "{dir}/project/base.json", "--format", "markdown"]
    nan = json.dumps(_cost([{"pool": "mig1g", "hourly": 1.0}])).replace("1.0", "NaN").encode()
    return [
        Case("base cost NaN", "base", plan, k.base_plan(nan), says="--base"),
        Case("base cost -1", "base", plan, k.base_plan(_cost([{"pool": "mig1g", "hourly": -1}])), says="--base"),
        Case("base cost 1e308", "base", plan, k.base_plan(_cost([{"pool": "mig1g", "hourly": 1e308}]))),
        Case(
            "base currency ESC", "base", plan, k.base_plan({**BASE, "cost": {"currency": "\x1b[31mEUR", "pools": []}})
        ),
        Case(
            "base dra negative",
            "base",
            plan,
            k.base_plan({**BASE, "draDevices": {"mig1g": [{**DEVICE, "perNode": -3}]}}),
        ),
        Case(
            "base dra HTML",
            "base",
            plan,
            k.base_plan({**BASE, "draDevices": {"<b>x</b>": [{**DEVICE, "kind": "<img>"}]}}),
        ),
        Case("base dra not a map", "base", plan, k.base_plan({**BASE, "draDevices": [1]})),
        Case("base 100000 deep", "base", plan, k.base_plan(k.nested(100_000))),
        Case(
            "base 5000-digit count",
            "base",
            plan,
            k.base_plan(json.dumps(BASE).replace('"nodes": 2', '"nodes": ' + "9" * 5000).encode()),
        ),
    ]


def _stack_edit(change: Callable[[dict], None], command: str = "check") -> tuple[list[str], Callable[[Path], dict]]:
    def prepare(where: Path) -> dict[str, str]:
        k.edited_stack(where, change)
        return {}

    return [command, "--config", "{dir}/project/Pulumi.dev.yaml"], prepare


def _pool(field: str, value: Any) -> Callable[[dict], None]:
    return lambda config: config["gpupools:gpuPools"][0].update({field: value})


def _with_project(env: dict[str, str]) -> Callable[[Path], dict[str, str]]:
    def prepare(where: Path) -> dict[str, str]:
        k.project(where)
        return env

    return prepare


def gap_cases() -> list[Case]:
    no_software = _stack_edit(lambda c: (c.pop("gpupools:gpuSoftware"), _pool("size", "Standard_ND96asr_v5")(c)))
    gates = _stack_edit(lambda c: c["gpupools:gpuSoftware"].update(draAlphaGates=["TimeSlicingSettings"] * 1000))
    subnets = ["check", "--config", "{dir}/project/Pulumi.eks.yaml"]

    def many_subnets(where: Path) -> dict[str, str]:
        k.edited_stack(
            where, lambda c: c["gpupools:cluster"].update(subnetIds=[f"bad-{n}" for n in range(10_000)]), "eks"
        )
        return {}

    return [
        Case(
            "plan | head -1",
            "gaps",
            ["plan", "--config", "{dir}/project/Pulumi.dev.yaml"],
            _with_project({}),
            pipe=True,
            codes=frozenset({0}),
        ),
        Case("missing gpuSoftware", "gaps", no_software[0], no_software[1], says="Standard_ND96asr_v4"),
        Case("size typo", "gaps", *_stack_edit(_pool("size", "Standard_ND96asr_v5")), says="did you mean"),
        Case("count quoted", "gaps", *_stack_edit(_pool("count", "2")), says="quotes"),
        Case("1000 draAlphaGates", "gaps", gates[0], gates[1]),
        Case("10000 subnets", "gaps", subnets, many_subnets, says="9995 more"),
    ]


def provider_cases() -> list[Case]:
    """Construct with hostile args, through ``hostile_provider`` (the provider has no command line)."""
    from support import hostile_provider

    return [
        Case(name, "provider", ["@provider", name], codes=codes)
        for name, (_, _, codes) in hostile_provider.cases().items()
    ]


def reference_cases() -> list[Case]:
    """No hostile input: what a plain plan and check cost on this machine, to read the others' times against."""
    return [
        Case("plain plan", "reference", [*PLAN, "--json"], _with_project({}), codes=frozenset({0})),
        Case("plain check", "reference", ["check", "--config", "{dir}/project/Pulumi.dev.yaml"], _with_project({})),
    ]


def all_cases() -> list[Case]:
    return (
        reference_cases()
        + refresh_cases()
        + path_cases()
        + cache_cases()
        + program_cases()
        + base_cases()
        + provider_cases()
        + verify_cases()
        + gap_cases()
        + io_cases()
    )
