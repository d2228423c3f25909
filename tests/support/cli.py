"""The ``gpupools`` command run in-process, with what it printed and how long it took."""

from __future__ import annotations

import functools
import io
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from unittest import mock

from gpupools import cli
from gpupools.cli import main

_build_parser = cli._parser


@functools.cache
def _parser_once():
    """gpupools's argument parser, built once per process: building it is most of an in-process run (each help
    string goes through gettext's file lookups), and parsing leaves it as it was (argparse keeps what it parses in
    the namespace it returns). What it accepts and prints is the same as a freshly built one's."""
    return _build_parser()


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
    with redirect_stdout(out), redirect_stderr(err), mock.patch.object(cli, "_parser", _parser_once):
        code = main(list(argv))
    return CliRun(code, out.getvalue(), err.getvalue(), time.monotonic() - start)
