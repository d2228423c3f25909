"""Markdown pieces the reference pages share: tables whose cells cannot break the table, and the anchors MkDocs gives
headings (Python-Markdown's ``toc`` slugs), so generated links point where ``mkdocs build --strict`` checks."""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Sequence


def prose(text: str) -> str:
    """Text outside code spans with ``<`` escaped, so ``Pulumi.<stack>.yaml`` is not read as an HTML tag."""
    pieces = text.split("`")
    return "`".join(piece if index % 2 else piece.replace("<", "&lt;") for index, piece in enumerate(pieces))


def cell(text: str) -> str:
    """One table cell: a pipe would end the cell and a newline the row."""
    return prose(" ".join(text.split())).replace("|", "\\|")


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def code(text: object) -> str:
    return f"`{text}`"


def codes(values: Iterable[object]) -> str:
    return ", ".join(code(value) for value in values)


def slug(heading: str) -> str:
    """The anchor of a heading, as Python-Markdown's ``toc`` extension makes it (backticks are markup, not text)."""
    text = unicodedata.normalize("NFKD", heading.replace("`", "")).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def link(text: str, heading: str) -> str:
    return f"[{text}](#{slug(heading)})"
