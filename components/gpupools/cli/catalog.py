"""``gpupools catalog [--json]``: every pinned fact with its source, the date read and its status on the plan's
date (``facts/``); the scheduled workflow reads ``--json`` and opens an issue for what needs attention."""

from __future__ import annotations

import argparse
import textwrap

from ..catalog.clock import plan_date
from ..facts.listing import Fact, needs_attention, pinned_facts
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
    lines = [on.line(), ""] + text_lines(facts)
    lines += [
        "",
        f"{len(attention)} need attention (ends soon, old or expected)" if attention else "nothing needs attention",
    ]
    print_lines(lines)
    return 0


WIDTH = 120  # no line of the text is longer: a source is a numbered note below the table, wrapped


def text_lines(facts: list[Fact]) -> list[str]:
    """One row per fact (kind, name, value, status, read date, source note), then each source once, wrapped."""
    notes: dict[str, int] = {}
    rows = []
    for fact in facts:
        note = notes.setdefault(fact.source, len(notes) + 1)
        newer = f", {notes.setdefault(fact.newer_source, len(notes) + 1)}" if fact.newer_source else ""
        rows.append((fact.kind, fact.name, fact.value, f"{fact.status_text()}; read {fact.read} [{note}{newer}]"))
    kind_width = max(len(row[0]) for row in rows)
    lines = []
    for kind, name, value, status in rows:
        lines.append(f"{kind:<{kind_width}}  {name}: {value}")
        lines.append(f"{'':<{kind_width}}    {status}")
    lines += ["", "sources:"]
    for source, number in notes.items():
        lines += textwrap.wrap(source, WIDTH, initial_indent=f"  [{number}] ", subsequent_indent="      ")
    return lines
