"""Text read from outside, made safe to print, by one function per destination: ``shown`` for a terminal (no ESC,
CR, line break, bidi override or other non-printable: each is written as its escape, so a value cannot forge a
line) and ``markdown_safe`` for Markdown (that, plus no HTML, no markup, no table cell broken by ``|``, no
mention). Long quoted values and long lines are cut with their full length given. Every line gpupools prints
passes through one of them: messages and report lines alike (``cli.check.print_lines``, ``verify.report``).
"""

from __future__ import annotations

import html
import json
import re

MAX_VALUE_CHARS = 80  # a quoted value longer than this is cut
MAX_FIELD_CHARS = 160
MAX_LINE_CHARS = 1000
MAX_MARKDOWN_CHARS = 600  # a value in Markdown, before its escapes (which may make it longer)

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# A quoted value as repr() or f"'{value}'" writes it: a quote not inside a word, up to the matching one.
_QUOTED = re.compile(
    r"""(?<!\w)(?:'((?:[^'\\]|\\.){%d,})'|"((?:[^"\\]|\\.){%d,})")(?!\w)""" % ((MAX_VALUE_CHARS + 1,) * 2)
)
# Markdown (GitHub's) syntax that could close a table cell, start a link or code, emphasise, strike or mention
# someone; html.escape takes <, > and &, so a value cannot inject ``</details><img ...>`` into a pull request
# comment. ``_`` inside a word emphasises nothing in GitHub's Markdown (``Standard_ND96asr_v4`` stays as it is).
_MARKDOWN_ESCAPES = str.maketrans(
    {
        "|": "\\|",
        "`": "&#96;",
        "[": "\\[",
        "]": "\\]",
        "*": "\\*",
        "~": "\\~",
        "@": "&#64;",
        "#": "&#35;",
        "!": "&#33;",
        "\\": "\\\\",
    }
)
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


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


def shown(text: str, cut_values: bool = True) -> str:
    """``text`` as it may be printed on a terminal: one line, escaped, cut at 1000 characters; in a message
    (``cut_values``) each quoted value longer than 80 characters is cut too (a report keeps its own quotes)."""
    safe = terminal_safe(text)
    return cut(_QUOTED.sub(_cut_quoted, safe) if cut_values else safe, MAX_LINE_CHARS)


def located(where: str, message: str) -> str:
    """``where: message`` as one safe line: the place (a field, a file) cut at 160 characters, the message shown."""
    return f"{cut(terminal_safe(where), MAX_FIELD_CHARS)}: {shown(message)}"


def markdown_safe(text: str) -> str:
    """``text`` as it may go into Markdown (a table cell, a heading, a list item): shown, HTML-escaped, and
    Markdown's markup escaped."""
    safe = _QUOTED.sub(_cut_quoted, terminal_safe(text))
    escaped = html.escape(safe[:MAX_MARKDOWN_CHARS], quote=False).translate(_MARKDOWN_ESCAPES)
    # Cut before escaping, so the length given is the value's, and the line it goes in stays within its bound.
    return _EDGE_UNDERSCORE.sub(r"\\_", escaped) + (
        f"... ({len(safe)} characters)" if len(safe) > MAX_MARKDOWN_CHARS else ""
    )


_JSON_HTML = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def json_text(value: object) -> str:
    """``value`` as the JSON gpupools prints: ASCII only (no raw control or bidi character), no NaN, and ``<``, ``>``
    and ``&`` as ``\\u`` escapes, so a value read from outside cannot be an HTML tag wherever the JSON is shown.
    The data is the same: every JSON reader decodes the escapes back. (They only occur inside strings.)"""
    return json.dumps(value, indent=2, allow_nan=False, ensure_ascii=True).translate(_JSON_HTML)
