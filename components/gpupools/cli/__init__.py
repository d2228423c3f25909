"""The ``gpupools`` command: ``check`` validates a stack and shows its GPU capacity; ``plan`` shows what it would create."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from .._version import __version__
from ..config import ConfigError, read_stack_file, stack_file_path
from ..config.loading import StackFile

EXIT_BAD_CONFIG = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        stack_file = _stack_file(args)
        if args.command == "check":
            from .check import run_check
            return run_check(stack_file, args.format)
        from .plan import run_plan
        return run_plan(stack_file, args.format)
    except ConfigError as error:
        for problem in error.problems:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_BAD_CONFIG


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpupools", description=__doc__)
    parser.add_argument("--version", action="version", version=f"gpupools {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (
        ("check", "validate a stack's config and print the GPU resources each pool yields"),
        ("plan", "run the infra program offline under Pulumi mocks and print what the stack would create"),
    ):
        command = commands.add_parser(name, help=help_text)
        source = command.add_mutually_exclusive_group(required=True)
        source.add_argument("--stack", help="stack name: reads Pulumi.<stack>.yaml from the project root")
        source.add_argument("--config", type=Path, metavar="PATH", help="path to a Pulumi.<stack>.yaml file")
        output = command.add_mutually_exclusive_group()
        output.add_argument("--json", dest="format", action="store_const", const="json", help="print JSON")
        output.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    return parser


def _stack_file(args: argparse.Namespace) -> StackFile:
    if args.stack:
        return read_stack_file(stack_file_path(args.stack), args.stack)
    return read_stack_file(args.config)
