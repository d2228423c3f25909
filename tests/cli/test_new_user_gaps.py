"""What a new user met (issue 25): a closed stdout is not "a gpupools bug", a missing gpuSoftware section does not
hide the pools' problems, typos of sizes and profiles get a did-you-mean, a quoted number is told to lose its
quotes, and importing the AWS components shows no SDK DeprecationWarning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _stack(tmp_path: Path, change) -> Path:
    document = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    change(document["config"])
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


def _errors(stack: Path) -> list[str]:
    run = run_cli("check", "--config", str(stack))
    assert run.code == 2 and run.out == "", run.err
    return run.lines


def test_a_closed_stdout_exits_141_not_1() -> None:
    script = (
        "import os, sys\nfrom gpupools.cli import main\n"
        "r, w = os.pipe(); os.close(r); os.dup2(w, 1)\n"  # stdout is a pipe nobody reads
        "sys.exit(main(['check', '--stack', 'dev', '--json']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "components")}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, timeout=120)
    assert done.returncode == 141, done.stderr
    assert b"Traceback" not in done.stderr and b"internal error" not in done.stderr


def test_a_missing_gpu_software_section_does_not_hide_the_pools_problems(tmp_path: Path) -> None:
    def change(config: dict) -> None:
        del config["gpupools:gpuSoftware"]
        config["gpupools:gpuPools"][0]["size"] = "Standard_ND96asr_v5"

    lines = _errors(_stack(tmp_path, change))
    assert any("gpuSoftware" in line for line in lines)
    assert any("gpuPools[0].size: unknown azure GPU size 'Standard_ND96asr_v5'" in line for line in lines)


@pytest.mark.parametrize(
    ("field", "typo", "says"),
    [
        ("size", "Standard_ND96asr_v5", "did you mean 'Standard_ND96asr_v4'?"),
        ("mig", {"profile": "MIG1h"}, "did you mean 'MIG1g'?"),
    ],
)
def test_typos_of_sizes_and_profiles_get_a_did_you_mean(tmp_path: Path, field: str, typo, says: str) -> None:
    lines = _errors(_stack(tmp_path, lambda config: config["gpupools:gpuPools"][0].update({field: typo})))
    assert any(says in line for line in lines), lines


def test_a_quoted_count_is_told_to_lose_its_quotes(tmp_path: Path) -> None:
    [line] = _errors(_stack(tmp_path, lambda config: config["gpupools:gpuPools"][0].update({"count": "2"})))
    assert "gpuPools[0].count" in line and "remove the quotes" in line


def test_importing_the_aws_components_shows_no_sdk_deprecation_warning() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "components")}
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", "import gpupools.aws"],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-500:]
