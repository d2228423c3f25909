"""Run the preview workflow's ``plan_stacks.sh`` with the real ``gpupools`` executable against a base checkout,
as the pull request workflow does: the tests say which stack files the base had, this module the rest."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.stack_files import REPO


def _gpupools() -> Path:
    """The installed ``gpupools`` executable beside this Python; skips the test where it is not installed."""
    gpupools = Path(sys.executable).with_name("gpupools")
    if not gpupools.exists():
        pytest.skip("the gpupools executable is not installed in this environment")
    return gpupools


def base_checkout(base: Path) -> Path:
    """``base`` as the base branch's checkout, without stack files: the program (``infra``) and a ``.venv`` whose
    ``gpupools`` is the installed one. The caller adds ``Pulumi.yaml`` and the stack files."""
    gpupools = _gpupools()
    shutil.copytree(REPO / "infra", base / "infra", ignore=shutil.ignore_patterns("__pycache__"))
    (base / ".venv" / "bin").mkdir(parents=True)
    (base / ".venv" / "bin" / "gpupools").symlink_to(gpupools)
    return base


def pr_comment(base: Path, timeout: float) -> list[str]:
    """The lines ``plan_stacks.sh`` prints (the pull request comment) comparing this repository with ``base``."""
    gpupools = _gpupools()
    run = subprocess.run(
        ["bash", str(REPO / ".github" / "scripts" / "plan_stacks.sh"), str(base)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "GPUPOOLS": str(gpupools)},
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()
