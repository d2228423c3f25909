"""A user's program under ``gpupools plan`` (issue 25): its failure is reported as its own, with its file and line
and exit 2; its ``sys.exit`` and ``print`` change neither the plan's status nor its JSON; a ``Pulumi.yaml`` that is
not a regular file is refused, never skipped for the packaged program."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _project(folder: Path, source: bytes) -> Path:
    (folder / "Pulumi.yaml").write_text("name: own\nruntime: python\nmain: deploy.py\n")
    (folder / "deploy.py").write_bytes(source)
    return Path(shutil.copy2(ROOT / "Pulumi.dev.yaml", folder))


@pytest.mark.parametrize(
    ("source", "line", "says"),
    [
        (b"import pulumi\n\nraise RuntimeError('no quota here')\n", 3, "RuntimeError: no quota here"),
        (b"import pulumi\n\ndef f(:\n", 3, "SyntaxError"),
        (b"import pulumi\nx = '\xff'\n", 2, "is not UTF-8 text"),
        (b"import sys\n\nsys.exit(7)\n", 3, "the program called sys.exit(7)"),
        (b"import json\n\njson.loads('{')\n", 3, "JSONDecodeError"),  # raised inside a library: the caller's line
    ],
)
def test_a_failing_program_is_the_programs_error_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: bytes, line: int, says: str
) -> None:
    monkeypatch.delenv("GPUPOOLS_DEBUG", raising=False)
    stack = _project(tmp_path, source)
    run = run_cli("plan", "--config", str(stack), "--json")
    assert (run.code, run.out) == (2, ""), run.err
    [message] = run.lines
    assert message.startswith(f"error: the program {tmp_path / 'deploy.py'}:{line}: ") and says in message
    assert "internal error" not in message


def test_with_debug_the_programs_traceback_is_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPOOLS_DEBUG", "1")
    stack = _project(tmp_path, b"raise ValueError('mine')\n")
    run = run_cli("plan", "--config", str(stack))
    assert run.code == 2 and "Traceback (most recent call last)" in run.err and 'deploy.py", line 1' in run.err


def test_exit_zero_and_print_change_neither_the_status_nor_the_json(tmp_path: Path) -> None:
    source = b"import pulumi, sys\n\nprint('hello from the program')\npulumi.export('ran', 'yes')\nsys.exit(0)\n"
    stack = _project(tmp_path, source)
    run = run_cli("plan", "--config", str(stack), "--json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["outputs"] == {"ran": "yes"} and "hello from the program" in run.err


def _directory(path: Path) -> None:
    path.mkdir()


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


@pytest.mark.parametrize(("make", "says"), [(_directory, "a directory"), (_fifo, "a FIFO"), (_dev_zero, "a device")])
def test_a_pulumi_yaml_that_is_not_a_file_is_refused(tmp_path: Path, make, says: str) -> None:
    make(tmp_path / "Pulumi.yaml")
    stack = Path(shutil.copy2(ROOT / "Pulumi.dev.yaml", tmp_path))
    run = run_cli("plan", "--config", str(stack), "--json")
    assert (run.code, run.out) == (2, ""), run.err
    [message] = run.lines
    assert "Pulumi.yaml" in message and says in message
