"""The ``gpupools`` command: ``check`` validates a stack and shows its GPU capacity; ``plan`` shows what it would
create (and, with ``--base``, what it changes); ``verify`` checks a live cluster against the plan.

Whatever it is given, it answers with output and status 0, or with one ``error:`` line per problem and
status 2 (bad input, or an output it cannot write: ``> /dev/full``) or 1 (a failure of gpupools itself): never a
traceback, and never an error from a reader that closed the pipe early (``gpupools plan --json | head``: 141).
The statuses are ``errors.ExitStatus``.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import os
import re
import sys
import traceback
from typing import IO, NoReturn, Sequence

from .._version import __version__
from ..catalog.clock import ClockError
from ..catalog.extras import MissingExtraError
from ..config.errors import NAMESPACE, ConfigError, Problem
from ..config.loading import read_stack_file, stack_file_path
from ..config.loading import OUTSIDE_FLAG, StackFile
from ..errors import ExitStatus
from ..untrusted.headroom import InputTooLarge, too_large
from ..untrusted.lookup import did_you_mean
from ..untrusted.null_output import discard_descriptor, null_text_stream
from ..untrusted.text import shown
from . import help as help_text

EXIT_INTERNAL = int(ExitStatus.INTERNAL)
EXIT_BAD_CONFIG = int(ExitStatus.BAD_INPUT)
EXIT_INTERRUPTED = int(ExitStatus.INTERRUPTED)
EXIT_CLOSED_PIPE = int(ExitStatus.CLOSED_PIPE)  # 128 + SIGPIPE, what a shell reports for a writer whose reader left
DEBUG_VARIABLE = "GPUPOOLS_DEBUG"  # set to 1 to let unexpected exceptions raise with their traceback


# argparse's time grows with the square of the number of options: 50,000 take minutes. No command of ours takes
# more than a dozen, so anything far beyond is refused before parsing.
MAX_ARGUMENTS = 200


def main(argv: Sequence[str] | None = None) -> int:
    _usable_streams()
    try:
        try:
            status = _run(argv)
        except SystemExit as leaving:  # --help and --version: what they printed is flushed here too
            if leaving.code in (None, 0):
                sys.stdout.flush()
            raise
        sys.stdout.flush()  # a closed pipe or a full disk shows up here, not at interpreter exit
        return status
    except BrokenPipeError:  # the reader left (gpupools plan | head -1): not a failure of gpupools
        _silence_stdout()
        return EXIT_CLOSED_PIPE
    except OSError as error:  # the output cannot be written (a full disk, > /dev/full): the user's, one line
        if not _output_failed(error):
            raise
        _silence_stdout()
        print(f"error: cannot write the output: {shown(error.strerror or str(error))}", file=sys.stderr)
        return EXIT_BAD_CONFIG


# What writing stdout raises when the place it goes cannot take it. Every file gpupools itself reads or writes
# goes through untrusted/ (files, atomic_file), which turns these into a FileRefused line, so one that reaches the
# command is its output's.
OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS, errno.EBADF, errno.EPERM})


def _output_failed(error: OSError) -> bool:
    return error.errno in OUTPUT_ERRNOS


def _usable_streams() -> None:
    """A closed stdout or stderr (``gpupools check >&-``) becomes /dev/null; on an ASCII-only stream (``LANG=C``,
    ``PYTHONIOENCODING=ascii``) characters it cannot encode are written as escapes (``\\u0430``), not raised."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or _closed_descriptor(stream):
            setattr(sys, name, null_text_stream())
        elif hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a detached or closed stream: leave it, BrokenPipe handling applies
                pass


def _closed_descriptor(stream: object) -> bool:
    try:
        os.fstat(stream.fileno())  # type: ignore[attr-defined]
    except OSError as error:  # io.UnsupportedOperation (an in-memory stream) has no errno: not closed
        return error.errno == errno.EBADF
    except (ValueError, AttributeError):
        return False
    return False


def _run(argv: Sequence[str] | None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if len(arguments) > MAX_ARGUMENTS:
        print(
            f"error: {len(arguments)} command-line arguments; gpupools takes at most {MAX_ARGUMENTS} "
            "(see gpupools --help)",
            file=sys.stderr,
        )
        return EXIT_BAD_CONFIG
    args = _parser().parse_args(arguments)
    try:
        if args.command == "prices":
            from .prices import run_prices

            return run_prices(args)
        if args.command == "catalog":
            from .catalog import run_catalog

            return run_catalog(args)
        if args.command == "sizes":
            from .sizes import run_sizes

            return run_sizes(args)
        if args.command == "stack-order":
            from .stack_order import run_stack_order

            return run_stack_order(args)
        if args.command == "schema":
            from .schema import run_schema

            return run_schema(args)
        if args.command == "fit" and (args.stack is not None or args.config is not None):
            from .fit_stack import run_fit_stack  # day two: a change to a stack

            return run_fit_stack(_stack_file(args), args)
        if args.command == "fit":
            from .fit import run_fit

            return run_fit(args)
        stack_file = _stack_file(args)
        if args.command == "check":
            from .check import run_check

            return run_check(stack_file, args.format, args.ascii)
        if args.command == "verify":
            from ..verify.command import run_verify

            return run_verify(stack_file, args)
        from .plan import run_plan

        return run_plan(stack_file, args.format, base=args.base, ascii_only=args.ascii, svg=args.svg)
    except ConfigError as error:
        if os.environ.get(DEBUG_VARIABLE) and error.__cause__ is not None:  # a user's program: its traceback
            traceback.print_exception(error.__cause__, file=sys.stderr)
        for problem in error.problems:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    except (RecursionError, MemoryError) as error:  # input within its bounds asked for more than we have
        print(f"error: {shown(str(too_large(_input_named(args), error)))}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    except InputTooLarge as error:
        print(f"error: {shown(str(error))}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    except ClockError as error:  # a malformed SOURCE_DATE_EPOCH: the user's environment, one line
        print(f"error: {shown(str(error))}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    except MissingExtraError as error:  # the user's install: which extra to add, not "a gpupools bug"
        print(f"error: {shown(str(error))}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    except (BrokenPipeError, SystemExit):
        raise
    except OSError as error:
        if _output_failed(error):
            raise  # main() says so in one line
        return _internal_error()
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception:  # noqa: BLE001 one line instead of a traceback; GPUPOOLS_DEBUG=1 shows it
        return _internal_error()


def _internal_error() -> int:
    """The exception being handled, a bug of ours, as one line (raised again under ``GPUPOOLS_DEBUG=1``)."""
    error = sys.exc_info()[1]
    if os.environ.get(DEBUG_VARIABLE):
        raise
    what = f"{type(error).__name__}: {str(error).strip() or '-'}"
    print(
        f"error: internal error: {shown(what)} (a gpupools bug; rerun with {DEBUG_VARIABLE}=1 for the traceback "
        "and report it)",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def _input_named(args: argparse.Namespace) -> str:
    """The input a command was given, for a line about it: its file, else the command."""
    for name, kind in (("demand", "demand file"), ("config", "stack file"), ("stack", "stack"), ("base", "--base")):
        value = getattr(args, name, None)
        if isinstance(value, str):
            return f"{kind} {value}"
    return f"gpupools {args.command}"


def _silence_stdout() -> None:
    """The reader went away: point stdout at /dev/null so the final flush at exit does not complain again."""
    try:
        discard_descriptor(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # in-process callers may have replaced stdout
        pass


_INVALID_CHOICE = re.compile(r"invalid choice: '(.*)' \(choose from (.*)\)$", re.DOTALL)


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors as one ``error:`` line like every other problem."""

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        """As argparse's, without its silence when the output cannot be written (``--help > /dev/full``)."""
        if message:
            (file or sys.stderr).write(message)

    def error(self, message: str) -> NoReturn:
        choice = _INVALID_CHOICE.search(message)
        if choice is not None:  # "invalid choice: 'chek' (choose from ...)": the one it was probably meant to be
            meant = did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2))).rstrip()
            message += f"; {meant}" if meant else ""
        print(f"error: {shown(message)} (see {shown(self.prog)} --help)", file=sys.stderr)
        raise SystemExit(EXIT_BAD_CONFIG)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gpupools",
        description=help_text.PROGRAM,
        epilog=help_text.TOP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gpupools {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser, metavar="COMMAND", title="commands"
    )
    for name in ("check", "plan", "verify"):
        command = help_text.stack_command_parser(commands, name)
        source = command.add_mutually_exclusive_group(required=True)
        source.add_argument(
            "--stack", metavar="NAME", help="the stack: reads Pulumi.NAME.yaml in the project root (see 'which stack')"
        )
        source.add_argument("--config", metavar="PATH", help="the stack file at PATH instead")
        output = command.add_mutually_exclusive_group()
        output.add_argument(
            "--json", dest="format", action="store_const", const="json", help="the same as --format json"
        )
        output.add_argument(
            "--format",
            choices=("text", "json", "markdown"),
            default="text",
            help="text (default), json or markdown (see 'output')",
        )
        if name in ("check", "plan"):
            command.add_argument(
                OUTSIDE_FLAG,
                action="store_true",
                help="let the stack's gpupools:demand name a file outside the project folder",
            )
        if name == "plan":
            command.add_argument(
                "--base",
                metavar="PLAN.json",
                help="a plan of the base branch (gpupools plan --json): start with what this plan "
                "changes (capacity, replaced pools, cost)",
            )
        if name != "verify":
            from .pictures import add_picture_arguments

            add_picture_arguments(command, svg=name == "plan")
        if name == "verify":
            from ..verify.command import add_verify_arguments  # cheap: the kubernetes client loads only when run

            add_verify_arguments(command)
    from .prices import add_prices_command  # the price list commands take no stack

    add_prices_command(commands)
    from .catalog import add_catalog_command  # takes no stack either

    add_catalog_command(commands)
    from .schema import add_schema_command  # nor this one

    add_schema_command(commands)
    from .sizes import add_sizes_command

    add_sizes_command(commands)
    from .fit import add_fit_command  # reads a demand file, not a stack

    add_fit_command(commands)
    from .stack_order import add_stack_order_command  # reads every stack file, for the deploy order

    add_stack_order_command(commands)
    return parser


def _stack_file(args: argparse.Namespace) -> StackFile:
    stack_file = (
        read_stack_file(stack_file_path(args.stack), args.stack)
        if args.stack is not None
        else read_stack_file(args.config)
    )
    if stack_file.config and not any(str(key).startswith(f"{NAMESPACE}:") for key in stack_file.config):
        # A project with its own program and config (examples/existing-aks-mig): say what the commands read.
        raise ConfigError([Problem(str(stack_file.path), OWN_CONFIG)])
    if getattr(args, "demand_outside_project", False):
        stack_file = dataclasses.replace(stack_file, demand_outside_project=True)
    return stack_file


OWN_CONFIG = (
    f"has no {NAMESPACE}:* keys; check, plan and verify read stacks of the gpupools program "
    f"({NAMESPACE}:cloud, {NAMESPACE}:cluster, ...). A project with its own config checks its program "
    'offline with gpupools.testing.run_program (docs/reuse.md: "Checking your own program offline")'
)
