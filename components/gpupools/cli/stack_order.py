"""``gpupools stack-order [STACK ...] [--json | --levels N]``: the order to deploy the repository's stacks in
(``stack_order``); the deploy workflow reads ``--levels`` output as its jobs' outputs, one matrix per level."""

from __future__ import annotations

import argparse
import json

from ..config.errors import ConfigError, Problem
from ..config.loading import check_stack_name, find_project_root
from ..stack_order import stack_order
from .check import print_lines
from ..untrusted.text import json_text
from .help import Parser


def add_stack_order_command(commands: argparse._SubParsersAction[Parser]) -> None:
    """Add ``stack-order`` to the CLI's subcommands."""
    command = commands.add_parser(
        "stack-order",
        help="the order to deploy the stacks in: each after the stacks it names under gpupools:stackReferences",
        description="Levels of stacks to deploy: a stack comes after every stack of this repository it names under "
        "gpupools:stackReferences (a platform stack before the team stacks that read it); a level's stacks may "
        "deploy in parallel. A cycle is refused.",
    )
    command.add_argument(
        "stacks", nargs="*", metavar="STACK", help="the stacks to order (default: every Pulumi.*.yaml in the project)"
    )
    output = command.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="the levels as a JSON list of lists")
    output.add_argument(
        "--levels",
        type=int,
        metavar="N",
        help="N lines level1=[...] .. levelN=[...] for $GITHUB_OUTPUT (empty levels as []); more levels are refused",
    )


def run_stack_order(args: argparse.Namespace) -> int:
    root = find_project_root()
    stacks = [check_stack_name(name, "STACK") for name in args.stacks] or sorted(
        path.name.removeprefix("Pulumi.").removesuffix(".yaml") for path in root.glob("Pulumi.*.yaml")
    )
    order = stack_order(root, list(dict.fromkeys(stacks)))
    if args.json:
        print(json_text([list(level) for level in order.levels]))
    elif args.levels is not None:
        if len(order.levels) > args.levels:
            raise ConfigError(
                [
                    Problem(
                        "--levels",
                        f"the stacks need {len(order.levels)} levels, more than {args.levels}; add a level's job "
                        "to the deploy workflow, or shorten the chains of gpupools:stackReferences",
                    )
                ]
            )
        padded = [*order.levels, *[()] * (args.levels - len(order.levels))]
        print_lines([f"level{number}={json.dumps(list(level))}" for number, level in enumerate(padded, 1)])
    else:
        print_lines(order.lines())
    return 0
