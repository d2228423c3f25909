"""``GpupoolsError``: the one base of every error gpupools raises on purpose.

A caller (a user's program, the CLI, a test) catches ``GpupoolsError`` to tell a refusal of ours from a bug;
anything else reaching the CLI is reported as an internal error (``ExitStatus.INTERNAL``). Subclasses keep their
builtin bases (``ValueError``, ``TypeError``, ...) so existing ``except`` clauses keep working. ``ExitStatus`` is
the command's exit contract, one table for the code, its help and its reference page.
"""

from __future__ import annotations

from enum import IntEnum


class GpupoolsError(Exception):
    """An error gpupools raises on purpose: bad input, an unsupported combination, an unreachable server."""


class ExitStatus(IntEnum):
    """The one exit contract of the ``gpupools`` command (``docs/reference/cli.md`` shows ``EXIT_MEANINGS``)."""

    OK = 0
    INTERNAL = 1
    BAD_INPUT = 2
    MISMATCH = 3
    INTERRUPTED = 130
    CLOSED_PIPE = 141


EXIT_MEANINGS = {
    ExitStatus.OK: "done: the output is complete",
    ExitStatus.INTERNAL: "a bug of gpupools, never the input: one `error: internal error:` line "
    "(`GPUPOOLS_DEBUG=1` shows the traceback); please report it",
    ExitStatus.BAD_INPUT: "the user's input or environment: a stack or demand file, an argument, a price list, a "
    "cluster that cannot be read, an output that cannot be written (a full disk, `> /dev/full`); one `error:` "
    "line per problem, naming the field or file",
    ExitStatus.MISMATCH: "`verify` only: the cluster does not advertise what the plan promised (one `mismatch:` "
    "line each)",
    ExitStatus.INTERRUPTED: "interrupted (Ctrl-C)",
    ExitStatus.CLOSED_PIPE: "the reader of the output went away (`gpupools plan | head -1`), as a shell reports "
    "SIGPIPE; nothing else is printed",
}
