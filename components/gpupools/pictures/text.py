"""The terminal's picture: each distinct GPU layout once, as one line of memory slices in boxes.

Box-drawing characters, or plain ASCII (``--ascii``, or a terminal whose encoding cannot show them); colour only
when asked (a TTY without ``NO_COLOR``: ``cli/pictures.py`` decides). Every name from input goes through
``untrusted.text.terminal_safe`` before any colour code is added, so a name cannot carry an escape of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..domain.mig_drawing import DistinctLayout, GpuPicture, Picture
from ..untrusted.text import terminal_safe

CELL = 8  # characters per memory slice inside the boxes


@dataclass(frozen=True)
class Glyphs:
    horizontal: str
    vertical: str
    corners: tuple[str, str, str, str]  # top-left, top-right, bottom-left, bottom-right
    tees: tuple[str, str]  # top, bottom
    spare: str


BOXES = Glyphs("─", "│", ("┌", "┐", "└", "┘"), ("┬", "┴"), "·")
ASCII = Glyphs("-", "|", ("+", "+", "+", "+"), ("+", "+"), ".")

# ANSI colours by compute slices, then for a whole GPU and spare slices (dim).
_COLOURS = {1: "36", 2: "32", 3: "33", 4: "35", 7: "34"}
_WHOLE_COLOUR, _SPARE_COLOUR = "1", "2"


def can_show_boxes(encoding: str | None) -> bool:
    """Whether text in ``encoding`` can hold the box-drawing characters (None: a text stream in memory, which can)."""
    try:
        "".join((BOXES.horizontal, BOXES.vertical, *BOXES.corners, *BOXES.tees, BOXES.spare)).encode(
            encoding or "utf-8"
        )
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def picture_lines(picture: Picture, ascii_only: bool = False, colour: bool = False) -> list[str]:
    """Each distinct layout: a heading (model, layout, pools, GPUs), its boxes, and the slice numbers."""
    glyphs = ASCII if ascii_only else BOXES
    lines: list[str] = []
    for distinct in picture.distinct():
        lines += [heading(distinct)] + gpu_lines(distinct.gpu, glyphs, colour)
    if lines:
        marks = f"{glyphs.spare * 3} spare: a memory slice no instance takes"
        lines.append(f"the numbers are memory slices, left to right; {marks}")
    return lines + [f"note: {terminal_safe(note)}" for note in picture.notes]


def heading(distinct: DistinctLayout) -> str:
    gpu = distinct.gpu
    pools = ", ".join(terminal_safe(name) for name in distinct.pools)
    used = f"{distinct.gpus} GPU{'' if distinct.gpus == 1 else 's'}"
    unused = f", {distinct.unused} unused" if distinct.unused else ""
    spare = f"; {len(gpu.spare)} spare slice{'' if len(gpu.spare) == 1 else 's'}" if gpu.spare else ""
    unsourced = "; placement unsourced: packed by size" if not gpu.sourced else ""
    return f"{terminal_safe(gpu.describe())} (pool {pools}: {used}{unused}{spare}{unsourced})"


def gpu_lines(gpu: GpuPicture, glyphs: Glyphs = BOXES, colour: bool = False) -> list[str]:
    """One GPU as three lines of boxes and a line of slice numbers."""
    cells = _cells(gpu)
    top, middle, bottom = [glyphs.corners[0]], [glyphs.vertical], [glyphs.corners[2]]
    for index, (label, slices, tint) in enumerate(cells):
        width = slices * CELL + slices - 1
        fill = glyphs.horizontal if tint != _SPARE_COLOUR else glyphs.spare
        top.append(fill * width)
        bottom.append(fill * width)
        text = _fitted(label, width)
        padded = text.center(width)
        middle.append(_tinted(padded, tint) if colour else padded)
        last = index == len(cells) - 1
        top.append(glyphs.corners[1] if last else glyphs.tees[0])
        bottom.append(glyphs.corners[3] if last else glyphs.tees[1])
        middle.append(glyphs.vertical)
    numbers = "".join(str(s).ljust(CELL + 1) for s in range(gpu.memory_slices))
    return ["".join(top), "".join(middle), "".join(bottom), f" {numbers}".rstrip()]


def _cells(gpu: GpuPicture) -> list[tuple[str, int, str]]:
    """(label, memory slices, colour) left to right; spare slices one cell each."""
    if gpu.whole:
        return [("whole GPU (no MIG)", gpu.memory_slices, _WHOLE_COLOUR)]
    by_start = {instance.start: instance for instance in gpu.instances}
    cells, slice_ = [], 0
    while slice_ < gpu.memory_slices:
        instance = by_start.get(slice_)
        if instance is None:
            cells.append(("spare", 1, _SPARE_COLOUR))
            slice_ += 1
            continue
        cells.append((instance.profile, instance.slices, _COLOURS.get(instance.compute, "37")))
        slice_ = max(instance.end, slice_ + 1)
    return cells


def _fitted(label: str, width: int) -> str:
    """The label, or a shorter form of it (``1g+me``, ``1g``), cut to the width."""
    label = terminal_safe(label)
    compute, _, rest = label.partition(".")
    shorter = [label, compute + ("+me" if rest.endswith("+me") else ""), compute]
    return next((form for form in shorter if len(form) <= width), label[:width])


def _tinted(text: str, colour: str) -> str:
    return f"\x1b[{colour}m{text}\x1b[0m"
