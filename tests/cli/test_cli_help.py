"""``gpupools --help`` and every command's help: plain text within 80 columns, a description that ends its
sentence, examples that the parser accepts, and what ``--stack`` reads and ``--format`` prints, with no reST markup
(docstrings are not help)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex

import pytest

from gpupools.cli import _parser, main

COMMANDS = [(), ("check",), ("plan",), ("verify",), ("prices",), ("prices", "refresh")]
STACK_COMMANDS = [("check",), ("plan",), ("verify",)]
REST = re.compile(r"``|:(class|func|meth|mod|attr|data|exc|ref|doc):|\.\. [a-z]+::|`[^`]+`_")


def help_text(command: tuple[str, ...], monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps the options to the terminal's width
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    return out.getvalue()


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "gpupools")
def test_help_fits_80_columns_and_has_no_rest(command, monkeypatch) -> None:
    text = help_text(command, monkeypatch)
    assert [line for line in text.splitlines() if len(line) > 80] == []
    assert REST.search(text) is None and "`" not in text


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "gpupools")
def test_help_describes_the_command_in_whole_sentences(command, monkeypatch) -> None:
    text = help_text(command, monkeypatch)
    description = text.split("\n\n")[1]  # after the usage, before the options
    assert len(description.split()) >= 15 and description.rstrip().endswith("."), description


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "gpupools")
def test_help_has_examples_the_parser_accepts(command, monkeypatch) -> None:
    text = help_text(command, monkeypatch)
    examples = text.split("\nexamples:\n", 1)[1].split("\n\n")[0].splitlines()
    prefix = ("gpupools", *command)
    commands = [shlex.split(line.split(">")[0]) for line in examples]
    assert commands and all(tuple(argv[: len(prefix)]) == prefix for argv in commands), examples
    for argv in commands:
        _parser().parse_args(argv[1:])  # a usage error would exit 2


@pytest.mark.parametrize("command", [(), *STACK_COMMANDS], ids=lambda c: " ".join(c) or "gpupools")
def test_help_says_where_stack_looks_and_what_format_prints(command, monkeypatch) -> None:
    text = " ".join(help_text(command, monkeypatch).split())
    assert (
        "--stack NAME reads Pulumi.NAME.yaml in the project root: the nearest folder at or above the current "
        "one that holds Pulumi.yaml" in text
    )
    assert "--config PATH reads the stack file at PATH" in text
    for line in (
        "text for people (the default)",
        "json for scripts; --json is short for --format json",
        "markdown for pull request comments and job summaries",
    ):
        assert line in text
