"""The ``gpupools`` command run in-process, with what it printed and how long it took."""

from __future__ import annotations

import io
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass

from gpupools.cli import main


@dataclass
class CliRun:
    """One run of ``gpupools``: its exit status, stdout, stderr and wall time."""

    code: int
    out: str
    err: str
    seconds: float

    @property
    def lines(self) -> list[str]:
        return self.err.splitlines()


def run_cli(*argv: str) -> CliRun:
    """``gpupools <argv>`` in this process, stdout and stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return CliRun(code, out.getvalue(), err.getvalue(), time.monotonic() - start)
