"""The MIG pictures on the command line: ``--ascii`` and ``--svg FILE`` for ``fit``, ``plan`` and ``check``, and
where the terminal's picture may use box characters and colour.

Colour only on a TTY and never when ``NO_COLOR`` is set (https://no-color.org: any non-empty value); ASCII with
``--ascii`` or when stdout's encoding cannot hold the box characters. The SVG is written through
``untrusted.atomic_file`` (the path is the user's): checked before the slow work, replaced in one step.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..config.errors import ConfigError, Problem
from ..domain.mig_drawing import Picture
from ..pictures.svg import render_svg
from ..pictures.text import can_show_boxes, picture_lines
from ..untrusted.atomic_file import check_writable, write_atomically
from ..untrusted.files import FileRefused
from ..untrusted.text import shown

SVG_KIND = "SVG picture"


def add_picture_arguments(command: argparse.ArgumentParser, svg: bool) -> None:
    command.add_argument(
        "--ascii",
        action="store_true",
        help="draw the MIG layouts in plain ASCII (also chosen when the terminal cannot show box characters)",
    )
    if svg:
        command.add_argument(
            "--svg",
            metavar="FILE",
            help="also write a picture of every node's GPUs and MIG instances as a self-contained SVG to FILE",
        )


def layout_lines(picture: Picture, ascii_only: bool) -> list[str]:
    """The terminal's picture for stdout as it is now (module docstring)."""
    stream = sys.stdout
    boxes = not ascii_only and can_show_boxes(getattr(stream, "encoding", None))
    return picture_lines(picture, ascii_only=not boxes, colour=wants_colour(stream))


def wants_colour(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def print_layouts(picture: Picture, ascii_only: bool, heading: str) -> None:
    """The heading and the picture; names in it are already escaped, so its own colour codes are printed as such."""
    print(layout_text(picture, ascii_only, heading), end="")


def layout_text(picture: Picture, ascii_only: bool, heading: str) -> str:
    """A blank line, the heading and the picture, each line ending in a newline; "" when there is nothing to draw."""
    lines = layout_lines(picture, ascii_only)
    return "\n".join(["", shown(heading), *lines]) + "\n" if lines else ""


def check_svg_path(path: str | None) -> None:
    """Refuse an unusable ``--svg`` path before the slow work (one line naming the option)."""
    if path is not None:
        try:
            check_writable(Path(path), SVG_KIND)
        except FileRefused as error:
            raise ConfigError([Problem("--svg", error.message)]) from None


def write_svg(path: str, picture: Picture, title: str) -> None:
    try:
        write_atomically(Path(path), render_svg(picture, title).encode("utf-8"), SVG_KIND)
    except FileRefused as error:
        raise ConfigError([Problem("--svg", error.message)]) from None
