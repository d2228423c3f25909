"""Every output format, fed a hostile fixture (issue 36, "one rule for what gpupools prints").

One hostile text goes wherever outside text reaches gpupools: a base plan's pool, resource and stack names, a
price cache's notes, a demand file, a stack file, a Kubernetes server's node names and labels. Each command is
run in-process in each of its formats, and what it printed (stdout and stderr) is scanned:

- no raw control or bidi character anywhere (text, JSON, Markdown);
- no line forged by a line break inside a value;
- in Markdown, outside fenced code: no HTML tag but gpupools's own ``<details>``/``<summary>``, no link, emphasis,
  code span or mention made of the input, and every table row as many cells as its header;
- JSON that parses, with no ``<`` in its text (the data keeps it, as an escape).
"""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import yaml

from gpupools import cli
from support.cli import CliRun, run_cli
from support.fake_kube_api import FakeKubeApi, aks_node, daemonset, daemonset_pod

ROOT = Path(__file__).resolve().parents[2]
DEV = str(ROOT / "Pulumi.dev.yaml")
HOSTILE = "evil\n# FORGED\r\x1b[31m<img src=x onerror=alert(1)>[x](javascript:alert(1))|**b**`c`\u202e@team ~~s~~\x85"
OWN_TAGS = {"<details>", "</details>", "<summary>", "</summary>"}
TAG = re.compile(r"</?[A-Za-z][^>\s]*[^>]*>")
HOSTILE_LINK = re.compile(r"(?<!\\)\[x(?<!\\)\]\(javascript")


def problems_in(text: str, kind: str) -> list[str]:
    """What is wrong with ``text`` printed as ``kind`` (text, json or markdown); empty when it is safe."""
    found = [f"raw {ch!r}" for ch in sorted(set(text)) if not ch.isprintable() and ch != "\n"]
    for line in text.splitlines():
        if "FORGED" in line and "\\n# FORGED" not in line and "\\\\n&#35; FORGED" not in line:
            found.append(f"a line forged by a line break: {line[:120]!r}")
    if kind == "json":
        json.loads(text)
        if "<" in text:
            found.append("a raw < in JSON")
    if kind == "markdown":
        found += _markdown_problems(text)
    return found


def _markdown_problems(text: str) -> list[str]:
    found: list[str] = []
    fenced = False
    header_cells: int | None = None
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        found += [f"HTML tag {tag!r}" for tag in TAG.findall(line) if tag not in OWN_TAGS]
        if HOSTILE_LINK.search(line):
            found.append(f"a link: {line[:120]!r}")
        for markup in ("**b**", "`c`", "@team", "~~s~~"):
            if markup in line:
                found.append(f"unescaped {markup!r}: {line[:120]!r}")
        if line.startswith("|"):
            cells = len(re.findall(r"(?<!\\)\|", line))
            header_cells = cells if header_cells is None else header_cells
            if cells != header_cells:
                found.append(f"a table row of {cells - 1} cells under a header of {header_cells - 1}: {line[:120]!r}")
        else:
            header_cells = None
    return found


def _run(argv: tuple[str, ...]) -> CliRun:
    """``run_cli``, with argparse's refusals (``SystemExit``) as a run of their own."""
    out, err = io.StringIO(), io.StringIO()
    try:
        return run_cli(*argv)
    except SystemExit as leaving:
        with redirect_stdout(out), redirect_stderr(err), pytest.raises(SystemExit):
            cli.main(list(argv))
        return CliRun(int(leaving.code or 0), out.getvalue(), err.getvalue(), 0.0)


def assert_safe(argv: tuple[str, ...], kind: str) -> None:
    run = _run(argv)
    assert run.code in (0, 2), (argv, run.err)
    assert not problems_in(run.out, kind if run.code == 0 else "text"), (argv, problems_in(run.out, kind))
    assert not problems_in(run.err, "text"), (argv, problems_in(run.err, "text"))
    if run.code == 2:
        assert run.out == "" or kind == "json", run.out
        assert all(line.startswith("error: ") for line in run.lines), run.err


@pytest.fixture(scope="module")
def base_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plan of the dev stack as the base, with hostile names where a base plan holds free text."""
    run = run_cli("plan", "--config", DEV, "--json")
    assert run.code == 0, run.err
    plan = json.loads(run.out)
    plan["stack"] = HOSTILE[:200]
    plan["capacity"].append({"pool": HOSTILE, "nodes": 1, "gpusPerNode": 1, "total": {f"nvidia.com/{HOSTILE}": 1}})
    plan["resources"].append({"type": HOSTILE, "name": HOSTILE, "parent": None, "inputs": {"x": HOSTILE}})
    plan["cost"]["pools"].append({"pool": HOSTILE, "hourly": 1.0, "monthly": 730.0, "sliceHourly": {HOSTILE: 0.5}})
    path = tmp_path_factory.mktemp("base") / "base.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def hostile_stack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    config["config"]["gpupools:gpuPools"][0].update(name=HOSTILE, size=HOSTILE, labels={HOSTILE: HOSTILE})
    config["config"][f"gpupools:{HOSTILE}"] = HOSTILE
    path = tmp_path_factory.mktemp("stack") / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return path


@pytest.fixture
def hostile_price_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A price cache whose free text (how it was made, a price's derivation) is hostile."""
    cache = {
        "format": "gpupools-prices/2",
        "currency": "USD",
        "retrieved": "2026-11-20",
        "howMade": HOSTILE,
        "prices": [
            {
                "cloud": "aws",
                "size": "p4d.24xlarge",
                "region": "us-east-1",
                "capacity": "onDemand",
                "perHour": 21.96,
                "source": "https://example.com/prices.json",
                "retrieved": "2026-11-20",
                "derivation": HOSTILE,
            }
        ],
    }
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(cache), encoding="utf-8")
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(path))
    return path


@pytest.mark.parametrize("kind", ["text", "json", "markdown"])
def test_plan_against_a_hostile_base(base_plan: Path, kind: str) -> None:
    assert_safe(("plan", "--config", DEV, "--format", kind, "--base", str(base_plan)), kind)


@pytest.mark.parametrize("command", ["check", "plan"])
@pytest.mark.parametrize("kind", ["text", "json", "markdown"])
def test_a_hostile_stack(hostile_stack: Path, command: str, kind: str) -> None:
    assert_safe((command, "--config", str(hostile_stack), "--format", kind), kind)


@pytest.mark.parametrize("kind", ["text", "json", "markdown"])
def test_check_of_a_valid_stack(kind: str) -> None:
    assert_safe(("check", "--config", DEV, "--format", kind), kind)


@pytest.mark.parametrize("kind", ["text", "json"])
def test_fit_of_a_hostile_demand(tmp_path: Path, kind: str) -> None:
    demand = {
        "cloud": "aws",
        "region": HOSTILE,
        "size": HOSTILE,
        "workloads": [{"name": HOSTILE, "slice": HOSTILE, "count": 1, "team": HOSTILE}, {HOSTILE: 1}],
    }
    path = tmp_path / "demand.yaml"
    path.write_text(yaml.safe_dump(demand, allow_unicode=True), encoding="utf-8")
    assert_safe(("fit", str(path), *(("--json",) if kind == "json" else ())), kind)


@pytest.mark.parametrize("kind", ["text", "json"])
def test_fit_sizes_and_catalog_with_a_hostile_price_cache(hostile_price_cache: Path, tmp_path: Path, kind: str) -> None:
    demand = tmp_path / "demand.yaml"
    demand.write_text(
        "cloud: aws\nregion: us-east-1\nsize: p4d.24xlarge\nworkloads: [{name: a, slice: 1g.5gb, count: 3}]\n"
    )
    json_flag = ("--json",) if kind == "json" else ()
    for argv in (("fit", str(demand)), ("sizes", "--size", "p4d.24xlarge"), ("catalog",)):
        assert_safe((*argv, *json_flag), kind)


@pytest.mark.parametrize("argv", [("sizes", "--size", HOSTILE), ("sizes", "--cloud", HOSTILE), (HOSTILE,)])
def test_hostile_arguments(argv: tuple[str, ...]) -> None:
    assert_safe(argv, "text")


@pytest.fixture(scope="module")
def hostile_cluster():
    """A Kubernetes API whose node name, labels and version are hostile."""
    server = FakeKubeApi().start()
    labels = {"nvidia.com/mig.config.state": HOSTILE, "gpupools.io/pool": "mig1g"}
    server.nodes = [aks_node(HOSTILE, "mig1g", "56", extra_labels=labels)]
    namespace, selector = "gpu-operator", {"app": "nvidia-device-plugin-daemonset"}
    server.daemonsets[namespace] = [daemonset(namespace, "nvidia-device-plugin", selector, selector)]
    server.pods[namespace] = [daemonset_pod(namespace, "nvidia-device-plugin", HOSTILE, selector)]
    server.version["gitVersion"] = HOSTILE
    yield server
    server.stop()


@pytest.mark.parametrize("kind", ["text", "json", "markdown"])
def test_verify_of_a_hostile_cluster(hostile_cluster: FakeKubeApi, tmp_path: Path, kind: str) -> None:
    kubeconfig = hostile_cluster.write_kubeconfig(tmp_path / "kubeconfig")
    run = run_cli("verify", "--config", DEV, "--kubeconfig", str(kubeconfig), "--format", kind)
    assert run.code in (0, 2, 3), run.err
    assert not problems_in(run.out, kind), problems_in(run.out, kind)
    assert not problems_in(run.err, "text"), problems_in(run.err, "text")
    assert "FORGED" in run.out + run.err  # the hostile text was read, and shown escaped


def test_the_scanner_finds_what_it_looks_for() -> None:
    """The checks above can fail: the raw hostile text, put where a value goes, is caught in each format."""
    raw_row = f"| {HOSTILE} | 1 |"
    assert problems_in(f"| pool | n |\n|---|---|\n{raw_row}\n", "markdown")
    assert problems_in(f"pool {HOSTILE}: 1\n", "text")
    assert problems_in(json.dumps({"pool": "<img src=x>"}), "json")
    assert not problems_in("| pool | n |\n|---|---|\n| a\\|b | 1 |\n<details>\n```\n<img>\n```\n", "markdown")


def test_a_long_line_is_cut_saying_how_long(tmp_path: Path) -> None:
    """Issue 36, example 13: check with thousands of subnet ids printed one line of 260,394 characters."""
    config = yaml.safe_load((ROOT / "Pulumi.eks.yaml").read_text(encoding="utf-8"))
    ids = [f"subnet-{i:017x}" for i in range(3000)]
    config["config"]["gpupools:cluster"].update(subnetIds=ids, vpcId="vpc-0123456789abcdef0")
    path = tmp_path / "Pulumi.many.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    for kind in ("text", "markdown"):
        run = run_cli("check", "--config", str(path), "--format", kind)
        assert run.code == 0, run.err
        longest = max(run.out.splitlines(), key=len)
        assert len(longest) <= 1000 + len("... (123456 characters)"), len(longest)
        cut = re.search(r"\.\.\. \((\d+) characters\)$", longest)
        assert cut is not None and int(cut.group(1)) > 3000 * len(ids[0])  # the line it was, all ids in it
