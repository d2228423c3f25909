"""Text read from outside, made safe to print: on a terminal (no ESC, CR, bidi overrides or other non-printables)
and in Markdown (no markup, no table cell broken by ``|``); long quoted values and long lines are cut with their
full length given. Every message that echoes what a user or a server wrote passes through here once.
"""

from __future__ import annotations

import html
import re

MAX_VALUE_CHARS = 80  # a quoted value longer than this is cut
MAX_FIELD_CHARS = 160
MAX_LINE_CHARS = 1000

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# A quoted value as repr() or f"'{value}'" writes it: a quote not inside a word, up to the matching one.
_QUOTED = re.compile(
    r"""(?<!\w)(?:'((?:[^'\\]|\\.){%d,})'|"((?:[^"\\]|\\.){%d,})")(?!\w)""" % ((MAX_VALUE_CHARS + 1,) * 2)
)
# Markdown (GitHub's) syntax that could close a table cell, start a link or code, or emphasise; html.escape takes
# <, > and &, so a value cannot inject ``</details><img ...>`` into a pull request comment.
_MARKDOWN_ESCAPES = str.maketrans(
    {"|": "\\|", "`": "&#96;", "[": "\\[", "]": "\\]", "*": "\\*", "_": "\\_", "\\": "\\\\"}
)


def terminal_safe(text: str) -> str:
    """``text`` with every non-printable character (ESC, CR, U+202E, ...) written as its escape, on one line."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


def cut(text: str, limit: int) -> str:
    """``text`` up to ``limit`` characters, and its full length when it was longer."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _cut_quoted(match: re.Match[str]) -> str:
    quote = match.group(0)[0]
    inner = match.group(1) if match.group(1) is not None else match.group(2)
    return f"{quote}{inner[:MAX_VALUE_CHARS]}...{quote} ({len(inner)} characters)"


def shown(text: str) -> str:
    """A message as it may be printed: escaped, quoted values cut at 80 characters, the line at 1000."""
    return cut(_QUOTED.sub(_cut_quoted, terminal_safe(text)), MAX_LINE_CHARS)


def located(where: str, message: str) -> str:
    """``where: message`` as one safe line: the place (a field, a file) cut at 160 characters, the message shown."""
    return f"{cut(terminal_safe(where), MAX_FIELD_CHARS)}: {shown(message)}"


def markdown_safe(text: str) -> str:
    """``text`` as it may go into a Markdown table cell: shown, HTML-escaped, and Markdown's markup escaped."""
    return html.escape(shown(text), quote=False).translate(_MARKDOWN_ESCAPES)
