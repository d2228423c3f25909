"""``gpupools catalog [--json]``: every pinned fact with its source, the date read and its status on the plan's
date (``facts/``); the scheduled workflow reads ``--json`` and opens an issue for what needs attention."""

from __future__ import annotations

import argparse

from ..catalog.clock import plan_date
from ..facts.listing import needs_attention, pinned_facts
from .check import print_lines
from .help import Parser
from ..untrusted.text import json_text


def add_catalog_command(commands: argparse._SubParsersAction[Parser]) -> None:
    """Add ``catalog`` to the CLI's subcommands."""
    command = commands.add_parser(
        "catalog",
        help="list every pinned fact (charts, images, Kubernetes windows, snapshots, actions) and its status",
        description="Every fact gpupools pins, with its source, the date it was read, and its status on the plan's "
        "date (SOURCE_DATE_EPOCH, else today): current, ends soon (within 60 days), ended, old (a snapshot "
        "read over 90 days ago); 'newer: X' where a newer upstream release was seen.",
    )
    command.add_argument("--json", dest="format", action="store_const", const="json", default="text")


def run_catalog(args: argparse.Namespace) -> int:
    on = plan_date()
    facts = pinned_facts(on.day)
    attention = needs_attention(facts)
    if args.format == "json":
        document = {
            "planDate": on.to_json(),
            "facts": [fact.to_json() for fact in facts],
            "attention": [fact.to_json() for fact in attention],
        }
        print(json_text(document))
        return 0
    lines = [on.line(), ""] + [fact.line() for fact in facts]
    lines += ["", f"{len(attention)} need attention (ends soon or old)" if attention else "nothing needs attention"]
    print_lines(lines)
    return 0
