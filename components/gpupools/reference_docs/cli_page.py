"""The command line reference (``docs/reference/cli.md``), read from the argparse parsers ``gpupools`` itself runs
(``cli._parser``): each command's summary, description, options and epilog (exit statuses and examples, written by
hand within 80 columns in ``cli/help.py``).

Options are rendered from the parser's actions rather than from ``format_help()``, whose layout depends on the
terminal's width and on the Python version, so the page is the same wherever it is generated.
"""

from __future__ import annotations

import argparse

from ..cli import _parser
from ..errors import EXIT_MEANINGS
from .markdown import code, codes, link, prose, table


def cli_page() -> str:
    parser = _parser()
    commands = list(_commands(parser))
    parts = [
        "# Command line reference",
        "",
        "Every command of `gpupools`, as `gpupools COMMAND --help` prints it. A guided tour: "
        "[Getting started](../getting-started.md).",
        "",
        _text(parser, parser.description),
        "",
        table(
            ["command", "what it does"],
            [[link(code(prog), prog), summary] for prog, summary, _ in commands],
        ),
        "",
        "Options of every command:",
        "",
        _options_table(parser),
        "",
        _text(parser, parser.epilog),
        "",
        _exit_statuses(),
    ]
    for prog, summary, command in commands:
        parts += ["", f"## {prog}", "", prose(summary[:1].upper() + summary[1:]) + ".", ""]
        parts += [_text(command, command.description), "", _usage(command), "", _options_table(command)]
        if command.epilog:
            parts += ["", _text(command, command.epilog)]
    return "\n".join(parts) + "\n"


def _exit_statuses() -> str:
    """The exit contract from ``errors.EXIT_MEANINGS``, the table the command itself returns by."""
    return "\n".join(
        [
            "## Exit statuses",
            "",
            "Every command ends with one of these; a script can tell bad input (2) from a bug of gpupools (1).",
            "",
            table(["status", "meaning"], [[code(int(status)), meaning] for status, meaning in EXIT_MEANINGS.items()]),
        ]
    )


def _commands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """Every command that runs something (``prices refresh``, not ``prices``), with its one-line summary."""
    found = []
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, command in action.choices.items():
            found.append((command.prog, summaries.get(name, ""), command))
            found += _commands(command)
    return found


def _options_table(parser: argparse.ArgumentParser) -> str:
    rows = []
    groups = {id(action): group for group in parser._mutually_exclusive_groups for action in group._group_actions}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        meaning = (action.help or "") % {"default": action.default, "prog": parser.prog}
        if not action.option_strings:  # a positional argument: its name, no option word
            rows.append([code(_plain_argument(action)), "", f"{meaning} (required)"])
            continue
        group = groups.get(id(action))
        if group is not None:
            others = [name for other in group._group_actions if other is not action for name in other.option_strings]
            meaning += (
                f" (this or {codes(others)}: one is required)" if group.required else f" (not with {codes(others)})"
            )
        elif action.required:
            meaning += " (required)"
        rows.append([codes(action.option_strings), _argument(action), meaning])
    return table(["option", "argument", "meaning"], rows)


def _argument(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None:
        return " | ".join(code(choice) for choice in action.choices)
    return code(action.metavar or action.dest.upper())


def _usage(parser: argparse.ArgumentParser) -> str:
    """``prog [options]`` as argparse would print it, one alternative group in ``(a | b)`` or ``[a | b]``."""
    words = [parser.prog]
    done: set[int] = set()
    groups = {id(action): group for group in parser._mutually_exclusive_groups for action in group._group_actions}
    for action in parser._actions:
        if id(action) in done or "-h" in action.option_strings:
            continue
        if isinstance(action, argparse._SubParsersAction):
            words.append(str(action.metavar or "COMMAND"))
            continue
        group = groups.get(id(action))
        members = group._group_actions if group is not None else [action]
        done |= {id(member) for member in members}
        shown = " | ".join(_option(member) for member in members)
        required = group.required if group is not None else action.required
        words.append(f"({shown})" if required and len(members) > 1 else shown if required else f"[{shown}]")
    return f"```\n{' '.join(words)}\n```"


def _option(action: argparse.Action) -> str:
    if not action.option_strings:  # a positional argument (fit's DEMAND.yaml): its name is the whole word
        return _plain_argument(action)
    return action.option_strings[-1] + ("" if action.nargs == 0 else f" {_plain_argument(action)}")


def _plain_argument(action: argparse.Action) -> str:
    if action.choices is not None:
        return "{" + ",".join(str(choice) for choice in action.choices) + "}"
    return str(action.metavar or action.dest.upper())


def _text(parser: argparse.ArgumentParser, text: str | None) -> str:
    """Help text as the terminal shows it: as written where argparse prints it so (``RawDescriptionHelpFormatter``),
    else a paragraph, which argparse wraps to the terminal."""
    formatter = parser.formatter_class
    if isinstance(formatter, type) and issubclass(formatter, argparse.RawDescriptionHelpFormatter):
        return f"```text\n{(text or '').strip()}\n```"
    return prose(" ".join((text or "").split()))
