"""The habits are wired in: ``.ci/run`` runs the pre-commit hooks (lint, format) and pyright over the whole package
before the tests, and ``.pre-commit-config.yaml`` runs the same linter and formatter and the fast test loop before a
commit.

pyright itself runs in ``.ci/run`` (about 2.5 minutes on 2 cores), not here; these tests keep the wiring from
drifting: a check dropped from CI, run after the tests, or a hook that runs something else than CI does.
"""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _ci_commands() -> list[str]:
    """The commands of ``.ci/run``, one per line, without comments."""
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def _index(commands: list[str], fragment: str) -> int:
    found = [i for i, command in enumerate(commands) if fragment in command]
    assert found, f".ci/run has no command with {fragment!r}"
    return found[0]


def test_ci_checks_format_and_types_before_the_tests():
    commands = _ci_commands()
    tests = _index(commands, "-m pytest")
    install = _index(commands, ".ci/install-")
    # ruff check and ruff format run as pre-commit's hooks over every file, the fast loop skipped (the suite runs).
    hooks = _index(commands, "pre-commit run --all-files")
    assert hooks < tests and commands[hooks].startswith("SKIP=pytest-pure ")
    assert {"ruff-check", "ruff-format"} <= set(_hooks())
    pyright = _index(commands, ".ci/node/node_modules/.bin/pyright")
    assert install < pyright < tests
    # pyright alone, so pyproject.toml's [tool.pyright] says what is checked (the whole package).
    assert ".ci/node/node_modules/.bin/pyright" in commands and "--verifytypes" not in commands[pyright]


def test_ci_fails_without_pyright_on_ci():
    """Locally the type check is skipped without npm; with CI=true a missing pyright fails the run."""
    text = (ROOT / ".ci" / "run").read_text()
    assert '"${CI:-}" = "true"' in text and "exit 1" in text


def test_pyright_checks_the_whole_package_in_basic_mode():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pyright"]
    assert config["include"] == ["components/gpupools"]
    assert config["typeCheckingMode"] == "basic"
    assert config["venv"] == ".venv" and config["venvPath"] == "."


def _hooks() -> dict[str, dict]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    return {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}


def test_pre_commit_runs_what_ci_and_the_readme_run():
    """ruff check and ruff format from the project's venv (the version requirements-dev.txt pins), and the
    README's inner loop, ``pytest -m pure``, once per commit rather than once per file."""
    hooks = _hooks()
    assert set(hooks) == {"ruff-check", "ruff-format", "pytest-pure"}
    assert shlex.split(hooks["ruff-check"]["entry"])[:2] == [".venv/bin/ruff", "check"]
    assert shlex.split(hooks["ruff-format"]["entry"])[:2] == [".venv/bin/ruff", "format"]
    pure = hooks["pytest-pure"]
    assert shlex.split(pure["entry"])[:5] == [".venv/bin/python", "-m", "pytest", "-m", "pure"]
    assert pure["pass_filenames"] is False
    assert all(hook["language"] == "system" for hook in hooks.values())  # nothing fetched
    assert ".venv/bin/python -m pytest -m pure" in (ROOT / "README.md").read_text()
