"""``gpupools plan --config`` runs the program ``pulumi up`` would run for that stack file, or refuses: never the
packaged program in place of the project's own.

What ``pulumi up`` runs (Pulumi project file reference: ``main`` is the "Path to the Pulumi program, relative to the
location of Pulumi.yaml. The default is the current working directory"; ``pulumi-language-python-exec`` runs it
with ``runpy.run_path``, which takes a directory with ``__main__.py`` or a Python file; pulumi/pulumi#20305 runs a
``main: ../prog/`` outside the project folder).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = "import pulumi\n\npulumi.export('ran', {!r})\n"


def project(folder: Path, main: str | None, runtime: str = "python") -> Path:
    """A project folder with ``Pulumi.yaml`` (``main`` when given) and a copy of the dev stack file; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Pulumi.yaml").write_text(f"name: own\nruntime: {runtime}\n" + (f"main: {main}\n" if main else ""))
    return Path(shutil.copy2(ROOT / "Pulumi.dev.yaml", folder))


def planned(stack: Path) -> dict:
    run = run_cli("plan", "--config", str(stack), "--json")
    assert (run.code, run.err) == (0, ""), run.err
    return json.loads(run.out)


def refused(stack: Path) -> str:
    run = run_cli("plan", "--config", str(stack))
    assert (run.code, run.out) == (2, ""), run.err
    [line] = run.lines
    return line


def test_a_main_directory_runs_its_main_module(tmp_path) -> None:
    stack = project(tmp_path, "prog/")
    (tmp_path / "prog").mkdir()
    (tmp_path / "prog" / "__main__.py").write_text(PROGRAM.format("prog/__main__.py"))
    plan = planned(stack)
    assert plan["outputs"] == {"ran": "prog/__main__.py"} and plan["resources"] == []


def test_a_main_python_file_runs_that_file(tmp_path) -> None:
    stack = project(tmp_path, "deploy.py")
    (tmp_path / "helper.py").write_text("VALUE = 'sibling'\n")  # sibling modules import, as under pulumi up
    (tmp_path / "deploy.py").write_text("import pulumi\nimport helper\n\npulumi.export('ran', helper.VALUE)\n")
    assert planned(stack)["outputs"] == {"ran": "sibling"}


def test_a_project_without_main_runs_its_folder(tmp_path) -> None:
    stack = project(tmp_path, None)
    (tmp_path / "__main__.py").write_text(PROGRAM.format("root"))
    assert planned(stack)["outputs"] == {"ran": "root"}


def test_a_main_outside_the_project_runs_there(tmp_path) -> None:
    stack = project(tmp_path / "project", "../prog/")
    (tmp_path / "prog").mkdir()
    (tmp_path / "prog" / "__main__.py").write_text(PROGRAM.format("outside"))
    assert planned(stack)["outputs"] == {"ran": "outside"}


@pytest.mark.parametrize("main", ["missing.py", "missing/"])
def test_a_missing_main_is_refused(tmp_path, main) -> None:
    stack = project(tmp_path, main)
    line = refused(stack)
    assert line.startswith(f"error: {tmp_path / 'Pulumi.yaml'}: main: '{main}' (")
    assert "does not exist" in line


def test_a_main_directory_without_main_module_is_refused(tmp_path) -> None:
    stack = project(tmp_path, "prog/")
    (tmp_path / "prog").mkdir()
    assert "has no __main__.py" in refused(stack)


def test_a_project_without_any_program_is_refused(tmp_path) -> None:
    # Before, this planned the packaged program although pulumi up here would run nothing.
    stack = project(tmp_path, None)
    assert "has no __main__.py" in refused(stack)


def test_a_project_in_another_language_is_refused(tmp_path) -> None:
    stack = project(tmp_path, None, runtime="nodejs")
    (tmp_path / "index.ts").write_text("")
    assert refused(stack) == (
        f"error: {tmp_path / 'Pulumi.yaml'}: runtime: is 'nodejs'; gpupools plan runs Python "
        "programs only (runtime: python)"
    )


def test_a_lone_stack_file_plans_the_packaged_program(tmp_path) -> None:
    stack = Path(shutil.copy2(ROOT / "Pulumi.dev.yaml", tmp_path))
    plan = planned(stack)
    assert plan["outputs"]["gpuPools"]["mig1g"]["resourcesPerNode"] == {"nvidia.com/gpu": 56}
