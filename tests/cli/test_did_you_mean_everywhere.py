"""Did-you-mean wherever a name a user typed is looked up (issue 36, example 11), from one function
(``untrusted.lookup``), and one line per problem: a typo is one problem, however many sizes or rules see it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from gpupools import cli
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "components" / "gpupools"
EKS = yaml.safe_load((ROOT / "Pulumi.eks.yaml").read_text(encoding="utf-8"))


def _stack(tmp_path: Path, **edits: object) -> str:
    document = yaml.safe_load(yaml.safe_dump(EKS))
    config = document["config"]
    for dotted, value in edits.items():
        *parents, last = dotted.split("__")
        target = config
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[f"gpupools:{part}" if target is config else part]
        target[last if target is not config else f"gpupools:{last}"] = value
    path = tmp_path / "Pulumi.typo.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return str(path)


def _demand(tmp_path: Path, **fields: object) -> str:
    demand = {"cloud": "aws", "region": "us-east-1", "workloads": [{"name": "a", "slice": "1g.5gb", "count": 2}]}
    demand.update(fields)
    path = tmp_path / "demand.yaml"
    path.write_text(yaml.safe_dump(demand), encoding="utf-8")
    return str(path)


def _one_line(*argv: str) -> str:
    try:
        run = run_cli(*argv)
    except SystemExit as leaving:  # argparse's own refusals print through the CLI's parser
        assert leaving.code == 2
        return ""
    assert run.code == 2 and run.out == "", run.out
    assert len(run.lines) == 1, run.err
    return run.lines[0]


@pytest.mark.parametrize(
    ("edits", "meant"),
    [
        ({"cluster__region": "us-est-1"}, "did you mean 'us-east-1' or 'us-west-1'?"),
        ({"gpuPools__0__size": "p4d.24xlarg"}, "did you mean 'p4d.24xlarge'?"),
        ({"gpuPools__0__mig": {"layout": "all-balancd"}}, "did you mean 'all-balanced'?"),
        ({"gpuPools__0__mig": {"profile": "1g.5bg"}}, "did you mean '1g.5gb'?"),
        ({"gpuSoftware__installer": "gpu-operater"}, "did you mean 'gpu-operator'?"),
        ({"gpuSoftware__migStrategy": "mixd"}, "did you mean 'mixed'?"),
        ({"gpuPools__0__lables": {"a": "b"}}, "did you mean 'labels'?"),
    ],
)
def test_check(tmp_path: Path, edits: dict[str, object], meant: str) -> None:
    assert meant in _one_line("check", "--config", _stack(tmp_path, **edits))


@pytest.mark.parametrize(
    ("fields", "meant"),
    [
        ({"region": "us-est-1"}, "did you mean 'us-east-1' or 'us-west-1'?"),
        ({"size": "p4d.24xlarg"}, "did you mean 'p4d.24xlarge'?"),
        ({"cloud": "aws2"}, "did you mean 'aws'?"),
        ({"migManager": "operater"}, "did you mean 'operator'?"),
        ({"workloads": [{"name": "a", "slice": "1g.5bg", "count": 2}]}, "did you mean '1g.5gb'?"),
        ({"workloads": [{"name": "a", "memory": "500Gi", "count": 1}]}, "the largest is 7g.180gb, 180 GB"),
    ],
)
def test_fit(tmp_path: Path, fields: dict[str, object], meant: str) -> None:
    """One slice typo (or a memory no MIG profile holds) was 4-6 lines, one per size tried; now the demand's model
    refuses it once."""
    assert meant in _one_line("fit", _demand(tmp_path, **fields))


def test_sizes() -> None:
    assert "did you mean 'p4d.24xlarge'?" in _one_line("sizes", "--size", "p4d.24xlarg")


def test_prices_refresh_region_is_refused_before_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpupools.price_lists import refresh

    monkeypatch.setattr(refresh, "fetcher_until", lambda deadline: pytest.fail("asked the network"))
    line = _one_line("prices", "refresh", "--cloud", "aws", "--region", "us-est-1")
    assert line == "error: --region: 'us-est-1' is not a region of aws; did you mean 'us-east-1' or 'us-west-1'?"


def test_a_missing_stack_names_the_ones_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("dev", "prod"):
        (tmp_path / f"Pulumi.{name}.yaml").write_text("config: {}\n")
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    monkeypatch.chdir(tmp_path)
    line = _one_line("check", "--stack", "prd")
    assert "no such stack file; did you mean 'prod'? stacks here: dev, prod" in line


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (("chek",), "did you mean 'check'?"),
        (("sizes", "--cloud", "aw"), "did you mean 'aws'?"),
        (("check", "--stack", "dev", "--format", "mardown"), "did you mean 'markdown'?"),
        (("prices", "refesh"), "did you mean 'refresh'?"),
    ],
)
def test_arguments(argv: tuple[str, ...], meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as leaving:
        cli.main(list(argv))
    err = capsys.readouterr().err
    assert leaving.value.code == 2 and len(err.splitlines()) == 1 and meant in err, err


def test_difflib_is_asked_in_one_place() -> None:
    """The one function: no module but ``untrusted/lookup.py`` imports difflib (read with ast, every import)."""
    importers = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if "difflib" in names:
                importers.add(str(path.relative_to(PACKAGE)))
    assert importers == {"untrusted/lookup.py"}
