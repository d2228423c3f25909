"""``gpupools stack-order``: a stack deploys after the stacks of this repository it names under
``gpupools:stackReferences``; a cycle is refused with one line naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]


def _project(tmp_path: Path, references: dict[str, object], name: str = "gpupools") -> Path:
    (tmp_path / "Pulumi.yaml").write_text(f"name: {name}\nruntime: python\n")
    for stack, named in references.items():
        line = f"  gpupools:stackReferences: {json.dumps(named)}\n" if named is not None else ""
        (tmp_path / f"Pulumi.{stack}.yaml").write_text(f"config:\n  gpupools:cloud: aws\n{line}")
    return tmp_path


def test_the_repositorys_team_stack_deploys_after_the_platform_it_reads(monkeypatch):
    monkeypatch.chdir(REPO)
    run = run_cli("stack-order", "--json")
    assert run.code == 0, run.err
    levels = json.loads(run.out)
    stacks = sorted(path.name[len("Pulumi.") : -len(".yaml")] for path in REPO.glob("Pulumi.*.yaml"))
    assert sorted(sum(levels, [])) == stacks  # every stack once
    (eks_level,) = [n for n, level in enumerate(levels) if "eks" in level]
    (team_level,) = [n for n, level in enumerate(levels) if "existing-eks" in level]
    assert eks_level < team_level  # Pulumi.existing-eks.yaml names eks


def test_levels_chain_and_reference_forms(tmp_path, monkeypatch):
    monkeypatch.chdir(
        _project(
            tmp_path,
            {
                "platform": None,
                "team": ["platform"],
                "team-b": ["acme/gpupools/platform", "other-project/team"],  # another project's "team" is not ours
                "app": ["gpupools/team"],
            },
        )
    )
    run = run_cli("stack-order")
    assert run.code == 0, run.err
    assert run.out.splitlines() == [
        "1. platform",
        "2. team (after platform), team-b (after platform)",
        "3. app (after team)",
    ]
    run = run_cli("stack-order", "--levels", "4")
    assert run.out.splitlines() == ['level1=["platform"]', 'level2=["team", "team-b"]', 'level3=["app"]', "level4=[]"]
    run = run_cli("stack-order", "--levels", "2")
    assert run.code == 2 and run.err.startswith("error: --levels: the stacks need 3 levels, more than 2")
    # A stack not being deployed now is taken as deployed already: deploying app alone is one level.
    assert json.loads(run_cli("stack-order", "--json", "app", "team").out) == [["team"], ["app"]]


def test_a_cycle_is_refused_naming_it(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, {"a": ["b"], "b": ["c"], "c": ["a"], "d": None}))
    run = run_cli("stack-order")
    assert run.code == 2 and run.out == ""
    (line,) = run.err.splitlines()
    assert "stackReferences: the stacks read each other in a cycle (" in line
    cycle = line.split("cycle (")[1].split(")")[0].split(" -> ")
    assert len(cycle) == 4 and cycle[0] == cycle[-1] and set(cycle) == {"a", "b", "c"}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("eks", "is not a list; allowed: a list of stack references such as [eks]"),
        (["a/b/c/d"], "'a/b/c/d' is not a stack reference; allowed: <stack>, <project>/<stack> or"),
        (["x"] + ["me"], "names the stack itself (me); allowed: other stacks"),
    ],
)
def test_malformed_references_are_one_line_each(tmp_path, monkeypatch, value, message):
    monkeypatch.chdir(_project(tmp_path, {"me": value, "x": None}))
    run = run_cli("stack-order")
    assert run.code == 2
    (line,) = run.err.splitlines()
    assert line.startswith("error: Pulumi.me.yaml: gpupools:stackReferences: ") and message in line


def test_the_key_is_part_of_the_stack_file_schema():
    run = run_cli("check", "--config", str(REPO / "Pulumi.existing-eks.yaml"))
    assert run.code == 0, run.err


def test_an_unknown_stack_lists_the_stacks_there(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, {"dev": None, "prod-eu": None}))
    run = run_cli("check", "--stack", "deve")
    assert run.code == 2
    (line,) = run.err.splitlines()
    # config/loading names the stacks there, the closest first (untrusted.lookup)
    assert line.endswith("Pulumi.deve.yaml: no such stack file; did you mean 'dev'? stacks here: dev, prod-eu")
