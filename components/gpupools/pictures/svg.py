"""The SVG picture: one row per node, eight GPUs per row, each GPU a column of its memory slices (slice 0 on top)
with its instances as boxes where they really sit, labelled with profile and workload, and a legend.

Self-contained and deterministic: no script, no link, no external font (the generic ``monospace``), no id, date or
random value, so the same picture is the same bytes. Every name from input is made printable
(``untrusted.text.terminal_safe``: an ESC byte, which XML cannot hold at all, becomes ``\\x1b``) and then
XML-escaped, in text and in attributes alike.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from ..domain.mig_drawing import GpuPicture, NodePicture, Picture
from ..untrusted.text import terminal_safe

GPUS_PER_ROW = 8
MARGIN = 16
GPU_WIDTH = 128
GPU_GAP = 8
GPU_HEIGHT = 160  # the memory slices share it
NODE_PAD = 8
NODE_LABEL = 20
GPU_LABEL = 16
FONT = 12  # px: the smallest text, readable at 100 % zoom
CHAR = 0.62 * FONT  # a monospace character's advance, for cutting labels to their box
TITLE_FONT = 15
MAX_NODES = 100  # drawn; a larger answer says how many more it has, so the file stays a picture

# Fill by compute slices (a colour-blind-safe palette: Okabe and Ito), then whole GPUs and spare slices.
COLOURS = {1: "#56b4e9", 2: "#009e73", 3: "#f0e442", 4: "#cc79a7", 7: "#e69f00"}
OTHER = "#bbbbbb"
WHOLE_FILL = "#0072b2"
SPARE_FILL = "#f2f2f2"


def safe(text: str) -> str:
    """A name as SVG text or attribute value: printable, then XML-escaped (quotes too)."""
    return escape(terminal_safe(text), {'"': "&quot;", "'": "&#39;"})


def render_svg(picture: Picture, title: str) -> str:
    """The whole picture as an SVG document (module docstring)."""
    width = 2 * MARGIN + 2 * NODE_PAD + GPUS_PER_ROW * GPU_WIDTH + (GPUS_PER_ROW - 1) * GPU_GAP
    body: list[str] = [_text(MARGIN, MARGIN + TITLE_FONT, title, TITLE_FONT, bold=True)]
    y = MARGIN + TITLE_FONT + 12
    notes = list(picture.notes)
    if picture.node_count > min(MAX_NODES, len(picture.nodes)):
        notes.insert(0, f"the first {min(MAX_NODES, len(picture.nodes))} of {picture.node_count} nodes are drawn")
    for node in picture.nodes[:MAX_NODES]:
        drawn, height = _node(node, MARGIN, y, width - 2 * MARGIN)
        body += drawn
        y += height + 12
    if not picture.nodes:
        body.append(_text(MARGIN, y + FONT, "no nodes", FONT))
        y += FONT + 12
    legend, legend_height = _legend(picture, MARGIN, y)
    body += legend
    for note in notes:
        y_note = y + legend_height + FONT
        body.append(_text(MARGIN, y_note, f"note: {note}", FONT))
        legend_height += FONT + 6
    height = y + legend_height + MARGIN
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="{FONT}" role="img">'
    )
    return "\n".join([head, f"<title>{safe(title)}</title>", *body, "</svg>"]) + "\n"


def _node(node: NodePicture, x: int, y: int, width: int) -> tuple[list[str], int]:
    rows = max(1, -(-len(node.gpus) // GPUS_PER_ROW))
    row_height = GPU_LABEL + GPU_HEIGHT + GPU_GAP
    height = NODE_PAD + NODE_LABEL + rows * row_height
    label = f"pool {node.pool} · node {node.index} · {node.size}"
    out = [
        f'<rect class="node" x="{x}" y="{y}" width="{width}" height="{height}" rx="6" fill="#ffffff" '
        f'stroke="#444444"><title>{safe(label)}</title></rect>',
        _text(x + NODE_PAD, y + NODE_PAD + FONT, label, FONT, bold=True),
    ]
    for index, gpu in enumerate(node.gpus):
        row, column = divmod(index, GPUS_PER_ROW)
        gx = x + NODE_PAD + column * (GPU_WIDTH + GPU_GAP)
        gy = y + NODE_PAD + NODE_LABEL + row * row_height
        out += _gpu(gpu, index, gx, gy)
    return out, height


def _gpu(gpu: GpuPicture, index: int, x: int, y: int) -> list[str]:
    state = "" if gpu.used else " · unused"
    out = [_text(x, y + FONT, f"GPU {index}{state}", FONT)]
    top = y + GPU_LABEL
    dash = "" if gpu.used else ' stroke-dasharray="4 3"'
    out.append(
        f'<rect class="gpu" x="{x}" y="{top}" width="{GPU_WIDTH}" height="{GPU_HEIGHT}" fill="#ffffff" '
        f'stroke="#222222"{dash}/>'
    )
    opacity = "" if gpu.used else ' fill-opacity="0.35"'
    if gpu.whole:
        lines = ["whole GPU", gpu.workload or ("unused" if not gpu.used else "")]
        out += _box("whole", x, top, GPU_HEIGHT, WHOLE_FILL, opacity, lines, "#ffffff" if gpu.used else "#000000")
        return out
    slice_height = GPU_HEIGHT / max(gpu.memory_slices, 1)
    for spare in gpu.spare:
        out += _box("spare", x, top + spare * slice_height, slice_height, SPARE_FILL, "", ["spare"], "#555555")
    for instance in gpu.instances:
        fill = COLOURS.get(instance.compute, OTHER)
        lines = [instance.profile] + ([instance.workload] if instance.workload else [])
        height = instance.slices * slice_height
        out += _box("instance", x, top + instance.start * slice_height, height, fill, opacity, lines, "#000000")
    return out


def _box(kind: str, x: int, y: float, height: float, fill: str, extra: str, lines: list[str], ink: str) -> list[str]:
    """A box with its lines centred in it: on one line when the box holds only one."""
    lines = [line for line in lines if line]
    tip = " ".join(lines)
    out = [
        f'<rect class="{kind}" x="{x + 2}" y="{_n(y + 1)}" width="{GPU_WIDTH - 4}" height="{_n(height - 2)}" '
        f'rx="3" fill="{fill}" stroke="#333333"{extra}><title>{safe(tip)}</title></rect>'
    ]
    fits = max(1, int((height - 4) // (FONT + 2)))
    shown = lines if len(lines) <= fits else [tip]
    first = y + height / 2 - (len(shown) - 1) * (FONT + 2) / 2 + FONT * 0.35
    for number, line in enumerate(shown):
        out.append(_text(x + GPU_WIDTH / 2, first + number * (FONT + 2), _cut(line), FONT, ink=ink, middle=True))
    return out


def _legend(picture: Picture, x: int, y: int) -> tuple[list[str], int]:
    gpus = [gpu for node in picture.nodes for gpu in node.gpus] + [g for p in picture.pools for g in p.node_gpus]
    sizes = sorted({i.compute for gpu in gpus for i in gpu.instances})
    entries = [(COLOURS.get(size, OTHER), f"{size}g instance (profile, then workload)", "") for size in sizes]
    if any(gpu.whole for gpu in gpus):
        entries.append((WHOLE_FILL, "whole GPU (no MIG)", ""))
    if any(gpu.spare for gpu in gpus):
        entries.append((SPARE_FILL, "spare memory slice", ""))
    if any(not gpu.used for gpu in gpus):
        entries.append(("#ffffff", "unused GPU (dashed, faded)", ' stroke-dasharray="4 3"'))
    out = [_text(x, y + FONT, "Legend: each GPU is a column of its memory slices, slice 0 on top", FONT, bold=True)]
    for number, (fill, label, extra) in enumerate(entries):
        column, row = divmod(number, 3)
        ex, ey = x + column * 360, y + 22 + row * 22
        out.append(
            f'<rect class="legend" x="{ex}" y="{ey}" width="16" height="16" fill="{fill}" stroke="#333333"{extra}/>'
        )
        out.append(_text(ex + 24, ey + FONT + 1, label, FONT))
    return out, 22 + 22 * min(3, max(len(entries), 1))


def _cut(text: str) -> str:
    room = int((GPU_WIDTH - 8) // CHAR)
    return text if len(text) <= room else text[: room - 1] + "…"


def _text(
    x: float, y: float, text: str, size: int, bold: bool = False, ink: str = "#000000", middle: bool = False
) -> str:
    weight = ' font-weight="bold"' if bold else ""
    anchor = ' text-anchor="middle"' if middle else ""
    return f'<text x="{_n(x)}" y="{_n(y)}" font-size="{size}" fill="{ink}"{weight}{anchor}>{safe(text)}</text>'


def _n(value: float) -> str:
    """A coordinate with at most two decimals, the same on every run."""
    return f"{value:.2f}".rstrip("0").rstrip(".")
