"""Every entry point, drawn up to and past each bound it documents (issue 36, point 5).

Per command, Hypothesis draws inputs around the bounds of the schema, the demand file and the untrusted kit
(counts at and past their ``le``, names at and past their length, lists at and past their ``max_length``, files at
and past their size, documents at and past ``MAX_DEPTH``) mixed with hostile text. Each run, in-process, must end
with status 0 or 2; with 2, every stderr line is one ``error:`` line, none repeated and none beyond the line
bound; and nothing is written in the sandbox it runs in (its own folder, ``HOME``, ``XDG_CACHE_HOME`` and the
price and offers caches), except the price cache by a ``prices refresh`` that succeeded.

Budgets: each property sets its own, below the suite's ``SUITE_EXAMPLES`` (``tests/conftest.py``), so the file
stays within about 15 s: plan and fit run real work (the program under mocks, the exact search) and try the
fewest.
"""

from __future__ import annotations

import copy
import io
import json
import os
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupools import cli
from gpupools.config.base import MAX_NODES_PER_POOL, MAX_TIME_SLICING_REPLICAS
from gpupools.config.demand import MAX_REPLICAS, MAX_WORKLOADS
from gpupools.price_lists import refresh as refresh_module
from gpupools.untrusted.limits import MAX_DEPTH
from gpupools.untrusted.text import MAX_LINE_CHARS
from support.cli import _parser_once

ROOT = Path(__file__).resolve().parents[2]
STACKS = {name: yaml.safe_load((ROOT / f"Pulumi.{name}.yaml").read_text(encoding="utf-8")) for name in ("dev", "eks")}
HOSTILE = st.sampled_from(
    ["", " ", "a" * 64, "a" * 65, "x\n# h", "\x1b[31m", "<img src=x>", "\u202e", "é" * 300, "1e999"]
)
NAME = st.one_of(st.from_regex(r"[a-z0-9-]{0,70}", fullmatch=True), HOSTILE)
AROUND = st.sampled_from([-1, 0, 1, 2])  # added to a bound


@contextmanager
def sandbox(tmp: Path) -> Iterator[Path]:
    """The current folder, HOME, the XDG cache and the price and offers caches all inside ``tmp``."""
    env = {
        "HOME": str(tmp / "home"),
        "XDG_CACHE_HOME": str(tmp / "cache"),
        "GPUPOOLS_PRICE_CACHE": str(tmp / "cache" / "prices.json"),
        "GPUPOOLS_OFFERS_CACHE": str(tmp / "cache" / "offers.json"),
    }
    before = os.getcwd()
    os.chdir(tmp)
    try:
        with mock.patch.dict(os.environ, env):
            yield tmp
    finally:
        os.chdir(before)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run_bounded(tmp: Path, *argv: str, may_write: tuple[str, ...] = ()) -> tuple[int, str, str]:
    """``gpupools argv`` in the sandbox; asserts the exit contract and that nothing else was written."""
    before = _tree(tmp)
    out, err = io.StringIO(), io.StringIO()
    with sandbox(tmp), redirect_stdout(out), redirect_stderr(err), mock.patch.object(cli, "_parser", _parser_once):
        try:
            code = cli.main(list(argv))
        except SystemExit as leaving:  # argparse's refusals
            code = int(leaving.code or 0)
    after = _tree(tmp)
    lines = err.getvalue().splitlines()
    assert code in (0, 2), (argv, err.getvalue()[-2000:])
    if code == 2:
        assert lines and all(line.startswith("error: ") for line in lines), err.getvalue()[-2000:]
        assert len(set(lines)) == len(lines), "a problem said twice"
    assert all(len(line) <= MAX_LINE_CHARS + 200 for line in lines), "an error line past the bound"
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    allowed = set(may_write) if code == 0 else set()
    assert changed <= allowed, (argv, changed)
    return code, out.getvalue(), err.getvalue()


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"k": value}
    return value


# One change to a stack: a path in its config and the value put there.
EDITS = st.one_of(
    st.tuples(
        st.just(("gpupools:gpuPools", 0, "count")),
        st.sampled_from([-1, 0, 1, 10**30, 2**63]) | AROUND.map(lambda d: MAX_NODES_PER_POOL + d - 1),
    ),
    st.tuples(st.just(("gpupools:gpuPools", 0, "name")), NAME),
    st.tuples(
        st.just(("gpupools:gpuPools", 0, "size")), NAME | st.sampled_from(["p4d.24xlarge", "Standard_ND96asr_v4"])
    ),
    st.tuples(st.just(("gpupools:gpuPools", 0, "diskSizeGb")), st.sampled_from([63, 64, 4096, 4097, "64"])),
    st.tuples(st.just(("gpupools:gpuPools", 0, "maxPods")), st.sampled_from([9, 10, 250, 251])),
    st.tuples(
        st.just(("gpupools:gpuPools", 0, "timeSlicing")),
        AROUND.map(lambda d: {"replicas": MAX_TIME_SLICING_REPLICAS + d - 1}) | st.just({"replicas": 1}),
    ),
    st.tuples(st.just(("gpupools:cluster", "region")), NAME),
    st.tuples(st.just(("gpupools:cluster", "systemPool", "count")), st.sampled_from([0, 1, 100, 101])),
    st.tuples(
        st.just(("gpupools:cluster", "subnetIds")),
        st.sampled_from([0, 1, 2, 2000]).map(lambda n: [f"subnet-{i:017x}" for i in range(n)]),
    ),
    st.tuples(st.just(("gpupools:gpuPools", 0, "labels")), AROUND.map(lambda d: _nested(MAX_DEPTH + d - 3))),
    st.tuples(st.just(("gpupools:gpuPools",)), st.sampled_from([0, 1, 50, 51])),  # this many pools
    st.tuples(st.just(("gpupools:" + "k" * 10,)), HOSTILE),
)


@st.composite
def stack_files(draw: st.DrawFn) -> tuple[str, str]:
    """A stack file's text, the dev (AKS) or eks stack with a few edits drawn from ``EDITS``."""
    document = copy.deepcopy(STACKS[draw(st.sampled_from(sorted(STACKS)))])
    config = document["config"]
    first = copy.deepcopy(config["gpupools:gpuPools"][0])
    for path, value in draw(st.lists(EDITS, max_size=3)):
        if path == ("gpupools:gpuPools",):
            config["gpupools:gpuPools"] = [{**first, "name": f"p{i}"} for i in range(value)]
            continue
        target: Any = config
        for part in path[:-1]:
            if isinstance(target, list):
                if not target:
                    break
                target = target[0]
            else:
                target = target.setdefault(part, {})
        else:
            if isinstance(target, dict):
                target[path[-1]] = value
    return yaml.safe_dump(document, allow_unicode=True), draw(st.sampled_from(["text", "json", "markdown"]))


SLOW = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture], deadline=None)


def budget(examples: int) -> settings:
    """At most ``examples`` cases, and never more than the loaded profile's (the inner loop tries fewer)."""
    return settings(SLOW, max_examples=min(examples, settings.default.max_examples))


@budget(60)
@given(drawn=stack_files())
def test_check(tmp_path: Path, drawn: tuple[str, str]) -> None:
    text, kind = drawn
    (tmp_path / "Pulumi.s.yaml").write_text(text, encoding="utf-8")
    run_bounded(tmp_path, "check", "--config", "Pulumi.s.yaml", "--format", kind)


@budget(6)
@given(drawn=stack_files())
def test_plan(tmp_path: Path, drawn: tuple[str, str]) -> None:
    text, kind = drawn
    (tmp_path / "Pulumi.s.yaml").write_text(text, encoding="utf-8")
    run_bounded(tmp_path, "plan", "--config", "Pulumi.s.yaml", "--format", kind)


@budget(8)
@given(size=AROUND.map(lambda d: (1 << 20) + d - 1) | st.sampled_from([0, 10]))
def test_check_of_a_file_at_its_byte_bound(tmp_path: Path, size: int) -> None:
    head = yaml.safe_dump(STACKS["dev"])
    (tmp_path / "Pulumi.s.yaml").write_text(head + "#" * max(0, size - len(head.encode())), encoding="utf-8")
    run_bounded(tmp_path, "check", "--config", "Pulumi.s.yaml")


WORKLOAD = st.fixed_dictionaries(
    {
        "name": NAME,
        "count": st.sampled_from([-1, 0, 1, 2, 2**70, "3"]) | AROUND.map(lambda d: MAX_REPLICAS + d - 1),
    },
    optional={
        "slice": st.sampled_from(["1g.5gb", "2g.10gb", "7g.40gb", "1g.5bg", "a" * 41]) | HOSTILE,
        "memory": st.sampled_from(["18Gi", "0", "-1Gi", "1e999", "9" * 70]),
        "gpu": st.sampled_from(["whole", "half"]),
        "team": NAME,
    },
)


@st.composite
def demands(draw: st.DrawFn) -> dict[str, Any]:
    """A demand file: the fields' bounds, and a workloads list at and past ``MAX_WORKLOADS``."""
    many = draw(st.sampled_from([0, 1, 2, 3]) | AROUND.map(lambda d: MAX_WORKLOADS + d - 1))
    if many > 3:  # long lists: whole GPUs, for which no search runs
        workloads: list[Any] = [{"name": f"w{i}", "gpu": "whole", "count": 1} for i in range(many)]
    else:
        workloads = draw(st.lists(WORKLOAD, min_size=many, max_size=many))
    demand: dict[str, Any] = {
        "cloud": draw(st.sampled_from(["aws", "azure", "gcp"]) | HOSTILE),
        "region": draw(st.sampled_from(["us-east-1", "eastus", "us-est-1"]) | NAME),
        "workloads": workloads,
    }
    size = draw(st.sampled_from([None, "p4d.24xlarge", "Standard_ND96asr_v4", "p4d.24xlarg"]))
    if size is not None:
        demand["size"] = size
    return demand


@budget(15)
@given(demand=demands(), kind=st.sampled_from([(), ("--json",)]))
def test_fit(tmp_path: Path, demand: dict[str, Any], kind: tuple[str, ...]) -> None:
    (tmp_path / "demand.yaml").write_text(yaml.safe_dump(demand, allow_unicode=True), encoding="utf-8")
    run_bounded(tmp_path, "fit", "demand.yaml", "--time-limit", "0.1", *kind)


@budget(40)
@given(
    cloud=st.sampled_from([None, "aws", "azure", "gcp"]),
    size=st.sampled_from([None, "p4d.24xlarge", "p4d.24xlarg"]) | NAME,
    json_flag=st.booleans(),
)
def test_sizes(tmp_path: Path, cloud: str | None, size: str | None, json_flag: bool) -> None:
    argv = ["sizes", *(["--cloud", cloud] if cloud else []), *(["--size", size] if size is not None else [])]
    run_bounded(tmp_path, *argv, *(["--json"] if json_flag else []))


@budget(30)
@given(
    command=st.sampled_from(["catalog", "schema"]),
    extra=st.lists(st.sampled_from(["--json", "--x", "a" * 300, "\x1b"]), max_size=2),
    many=st.sampled_from([0, 1, 198, 199, 200, 201]),
)
def test_catalog_and_schema(tmp_path: Path, command: str, extra: list[str], many: int) -> None:
    """The two take (nearly) no input: their arguments, and the count of arguments at and past its bound."""
    filler = ["--json"] * max(0, many - 1 - len(extra)) if many > 150 else []
    run_bounded(tmp_path, command, *extra, *filler)


OFFER = (ROOT / "tests" / "price_lists" / "recorded_prices" / "aws_offer_us-east-1.json").read_bytes()


@st.composite
def price_answers(draw: st.DrawFn) -> bytes:
    """What a price server may answer: the recorded offer file, or it broken at a bound."""
    kind = draw(st.sampled_from(["recorded", "cut", "junk", "deep", "price", "region", "empty"]))
    if kind == "recorded":
        return OFFER
    if kind == "cut":
        return OFFER[: draw(st.integers(0, len(OFFER) - 1))]
    if kind == "junk":
        return draw(st.binary(max_size=200))
    if kind == "deep":
        return json.dumps(_nested(MAX_DEPTH + draw(AROUND) - 1)).encode()
    if kind == "empty":
        return b""
    document = json.loads(OFFER)
    if kind == "price":
        price = draw(st.sampled_from(["1e999", "-1", "0", "NaN", "1" * 40, "32.77"]))
        for offers in document["terms"]["OnDemand"].values():
            for offer in offers.values():
                for dimension in offer["priceDimensions"].values():
                    dimension["pricePerUnit"]["USD"] = price
    else:
        region = draw(NAME)
        for product in document["products"].values():
            product["attributes"]["regionCode"] = region
    return json.dumps(document).encode()


@budget(40)
@given(answer=price_answers())
def test_prices_refresh(tmp_path: Path, answer: bytes) -> None:
    """The refresh against a server answering ``answer`` for every request; the price cache is the only file a
    refresh may write, and only when it ends with 0."""
    with mock.patch.object(refresh_module, "fetcher_until", lambda deadline: lambda url: answer):
        run_bounded(
            tmp_path,
            "prices",
            "refresh",
            "--cloud",
            "aws",
            "--region",
            "us-east-1",
            may_write=(str(Path("cache") / "prices.json"),),
        )


@pytest.mark.parametrize(
    "argv", [("check", "--stack", "a" * 101), ("fit", "x" * 5000), ("sizes", "--size", "é" * 10_000)]
)
def test_names_past_their_bounds_are_one_line(tmp_path: Path, argv: tuple[str, ...]) -> None:
    code, _, err = run_bounded(tmp_path, *argv)
    assert code == 2 and len(err.splitlines()) == 1


def test_a_large_demand_within_its_bounds_ends_in_0_or_2_not_a_recursion_error(tmp_path: Path) -> None:
    """Issue 36, example 7: two workloads of thousands of replicas on one size made the search recurse past
    Python's limit (``internal error: RecursionError``). The guard is general (``untrusted.headroom``)."""
    demand = {
        "cloud": "aws",
        "region": "us-east-1",
        "size": "p4d.24xlarge",
        "workloads": [
            {"name": "a", "slice": "1g.5gb", "count": 3000},
            {"name": "b", "slice": "2g.10gb", "count": 3000},
        ],
    }
    (tmp_path / "demand.yaml").write_text(yaml.safe_dump(demand), encoding="utf-8")
    code, out, err = run_bounded(tmp_path, "fit", "demand.yaml", "--time-limit", "1")
    assert "RecursionError" not in err and (code == 2 or "GPUs:" in out)
