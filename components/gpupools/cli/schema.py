"""``gpupools schema``: the JSON Schema of stack files (``config.schema``), for editors and ``check-jsonschema``;
the repository commits it as schema/stack.schema.json, which the shipped stack files name on their first line."""

from __future__ import annotations

import argparse
import sys

from ..config.schema import schema_text
from .help import Parser


def add_schema_command(commands: argparse._SubParsersAction[Parser]) -> None:
    """Add ``schema`` to the CLI's subcommands."""
    commands.add_parser(
        "schema",
        help="print the JSON Schema (draft 2020-12) of Pulumi.<stack>.yaml files",
        description="The JSON Schema of stack files, generated from gpupools' config models: point an editor at it "
        "with a first line '# yaml-language-server: $schema=<path or URL>', or check a file with "
        "'check-jsonschema --schemafile stack.schema.json Pulumi.dev.yaml'.",
    )


def run_schema(args: argparse.Namespace) -> int:
    del args
    sys.stdout.write(schema_text())
    return 0
