"""The command's exit contract (issue 36): 0 done, 2 the user's input or output, 1 only a bug of ours, 3 a
``verify`` mismatch, 130 interrupted, 141 a reader that left. Each status is produced here by what it claims to
mean, and the reference page documents exactly the statuses these runs produce.
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

import pytest

from gpupools import cli
from gpupools.reference_docs.cli_page import cli_page
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
STACK = str(ROOT / "Pulumi.dev.yaml")
OBSERVED: dict[int, str] = {}  # status -> the test that produced it


class _FailingOutput(io.StringIO):
    """A stdout whose writes fail as a full disk's (or a closed pipe's) do."""

    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error

    def write(self, text: str) -> int:
        raise self.error

    def flush(self) -> None:
        raise self.error


def _run_into(stdout: io.StringIO, *argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with redirect_stdout(stdout), redirect_stderr(err):
        code = cli.main(list(argv))
    return code, err.getvalue()


def test_0_is_done() -> None:
    run = run_cli("check", "--config", STACK)
    assert run.code == 0 and run.err == "" and "config valid" in run.out
    OBSERVED[0] = "check of a valid stack"


def test_2_is_the_users_input_with_one_line_per_problem() -> None:
    run = run_cli("sizes", "--size", "p4d.24xlarg")
    assert run.code == 2 and run.out == ""
    assert run.lines == [
        "error: --size: 'p4d.24xlarg' is not a catalog size; did you mean 'p4d.24xlarge'? see gpupools sizes"
    ]
    OBSERVED[2] = "a misspelt size"


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EBADF])
@pytest.mark.parametrize("argv", [("schema",), ("sizes",), ("check", "--config", STACK), ("--version",)])
def test_an_output_that_cannot_be_written_is_2_with_one_line(code: int, argv: tuple[str, ...]) -> None:
    status, err = _run_into(_FailingOutput(OSError(code, os.strerror(code))), *argv)
    assert status == 2, err
    assert err.splitlines() == [f"error: cannot write the output: {os.strerror(code)}"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_schema_into_dev_full_is_2_with_one_line() -> None:
    """The example of the issue, as a shell runs it: a real full device, a real process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "components")}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "gpupools", "schema"], stdout=full, stderr=subprocess.PIPE, env=env, timeout=120
        )
    assert done.returncode == 2
    assert done.stderr.decode().splitlines() == ["error: cannot write the output: No space left on device"]


def test_141_is_a_reader_that_left_and_nothing_is_printed() -> None:
    status, err = _run_into(_FailingOutput(BrokenPipeError(errno.EPIPE, "Broken pipe")), "sizes")
    assert (status, err) == (141, "")
    OBSERVED[141] = "a closed pipe"


def test_1_is_only_a_bug_of_ours() -> None:
    """An exception no rule of ours raises on purpose, even an OSError that is not the output's, is a bug."""
    for error in (KeyError("reservedInstances"), OSError(errno.ENOENT, "No such file or directory")):
        with mock.patch("gpupools.cli.sizes.size_rows", side_effect=error):
            run = run_cli("sizes")
        assert run.code == 1 and len(run.lines) == 1
        assert (
            run.lines[0].startswith(f"error: internal error: {type(error).__name__}: ") and "a gpupools bug" in run.err
        )
    OBSERVED[1] = "an unexpected exception"


def test_130_is_interrupted() -> None:
    with mock.patch("gpupools.cli.sizes.size_rows", side_effect=KeyboardInterrupt):
        run = run_cli("sizes")
    assert (run.code, run.lines) == (130, ["error: interrupted"])
    OBSERVED[130] = "Ctrl-C"


def test_3_is_a_verify_mismatch_and_documented_as_such() -> None:
    """The mismatch status itself is produced by tests/verify (test_node_with_zero_allocatable and the others);
    here: ``verify --help`` says 3, and nothing else returns it."""
    run = run_cli_help("verify")
    assert "3 a mismatch" in run
    OBSERVED[3] = "verify: a cluster that does not match (tests/verify)"


def run_cli_help(command: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit) as leaving:
        cli.main([command, "--help"])
    assert leaving.value.code == 0
    return out.getvalue()


def test_the_reference_page_documents_exactly_the_statuses_produced() -> None:
    """Runs after the tests above (file order): the page's exit table names each status they produced, no other."""
    page = cli_page()
    section = page[page.index("## Exit statuses") :].split("\n## ", 1)[0]
    documented = {int(line.split("`")[1]) for line in section.splitlines() if line.startswith("| `")}
    expected = {0, 1, 2, 3, 130, 141}
    assert documented == expected
    if set(OBSERVED) == expected:  # the whole file ran
        assert documented == set(OBSERVED)
