"""The command under a hostile environment: engine variables, ASCII-only streams, closed stdout, huge argv.

Each case runs ``gpupools`` in a subprocess (the streams and the environment are the process's own) and must end
with a clean status and no traceback or internal error.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = "import sys; from gpupools.cli import main; sys.exit(main())"


def gpupools(*argv: str, env: dict[str, str] | None = None, timeout: float = 120, **kwargs):
    return subprocess.run(
        [sys.executable, "-c", RUN, *argv],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )


def clean(result) -> None:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr


@pytest.mark.parametrize("value", ["not json", "[1, 2]", '"text"'])
def test_engine_config_variables_do_not_reach_an_offline_plan(value):
    # PULUMI_CONFIG and PULUMI_CONFIG_SECRET_KEYS belong to a real deployment; the plan reads the stack file.
    result = gpupools("plan", "--stack", "dev", env={"PULUMI_CONFIG": value, "PULUMI_CONFIG_SECRET_KEYS": value})
    clean(result)
    assert result.returncode == 0 and result.stdout.startswith("stack dev (azure)")


def test_ascii_only_locale_escapes_a_refused_non_ascii_size(tmp_path):
    stack = tmp_path / "Pulumi.cyr.yaml"
    text = (
        (ROOT / "Pulumi.dev.yaml")
        .read_text(encoding="utf-8")
        .replace("size: Standard_ND96asr_v4", "size: Standard_ND96\u0430sr_v4")
    )
    stack.write_text(
        text.replace(
            "config:\n",
            "config:\n  gpupools:customSizes:\n    Standard_ND96\u0430sr_v4: {gpu: A100-40GB, gpus: 8}\n",
            1,
        ),
        encoding="utf-8",
    )
    result = gpupools("check", "--config", str(stack), env={"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"})
    clean(result)
    # Refused (sizes are ASCII, like the clouds'), and the error line shows the look-alike escaped.
    assert result.returncode == 2 and "Standard_ND96\\u0430sr_v4" in result.stderr, result.stderr


def test_closed_stdout_is_not_a_traceback():
    for closed in ({"stdout": subprocess.DEVNULL}, {}):
        process = subprocess.run(
            [sys.executable, "-c", "import os; os.close(1); " + RUN, "check", "--stack", "dev"],
            cwd=ROOT,
            capture_output=False,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            **closed,
        )
        assert process.returncode == 0 and "Traceback" not in process.stderr, process.stderr


def test_a_hundred_thousand_arguments_end_at_once():
    started = time.monotonic()
    result = gpupools("check", "--stack", "dev", *["--json"] * 100_000, timeout=30)
    clean(result)
    assert result.returncode == 2 and time.monotonic() - started < 10
    assert result.stderr.startswith("error: 100003 command-line arguments; gpupools takes at most")
