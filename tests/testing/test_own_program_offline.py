"""A project with its own program and config (``examples/existing-aks-mig``): ``check`` and ``plan`` say plainly
that they read ``gpupools:*`` stacks, and the docs' snippet (docs/reuse.md) that checks such a project offline with
``gpupools.testing`` runs as written, and catches a bad value."""

from __future__ import annotations

import re
import runpy
import shutil
from pathlib import Path

import pytest

from gpupools.component_args import ComponentArgsError
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "existing-aks-mig"
DOCS_PAGE = ROOT / "docs" / "reuse.md"
HEADING = "## Checking your own program offline"


def docs_snippet() -> str:
    section = DOCS_PAGE.read_text(encoding="utf-8").split(f"\n{HEADING}\n", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


@pytest.mark.parametrize("command", ["check", "plan"])
def test_check_and_plan_say_what_they_read(command) -> None:
    stack = EXAMPLE / "Pulumi.team.yaml"
    run = run_cli(command, "--config", str(stack))
    assert (run.code, run.out) == (2, ""), run.err
    [line] = run.lines
    assert line.startswith(
        f"error: {stack}: has no gpupools:* keys; check, plan and verify read stacks of the gpupools program"
    )
    assert "gpupools.testing.run_program" in line and HEADING.lstrip("# ") in line
    assert f"{DOCS_PAGE.relative_to(ROOT)}:" in line, "the message names the page that holds the section"


def _copied_example(tmp_path: Path) -> Path:
    project = Path(shutil.copytree(EXAMPLE, tmp_path / "team", ignore=shutil.ignore_patterns("__pycache__")))
    (project / "test_team.py").write_text(docs_snippet(), encoding="utf-8")
    return project


def test_the_docs_snippet_checks_the_example_offline(tmp_path) -> None:
    project = _copied_example(tmp_path)
    module = runpy.run_path(str(project / "test_team.py"))
    module["test_team_stack"]()


def test_the_docs_snippet_catches_a_bad_value(tmp_path) -> None:
    project = _copied_example(tmp_path)
    stack = project / "Pulumi.team.yaml"
    stack.write_text(stack.read_text().replace("MIG3g", "MIG5g"))
    module = runpy.run_path(str(project / "test_team.py"))
    with pytest.raises(ComponentArgsError) as caught:
        module["test_team_stack"]()
    assert "MIG5g" in str(caught.value)
