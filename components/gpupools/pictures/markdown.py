"""The pull request comment's picture: per changed pool, its GPU layout before and after, as a fixed-width block.

A fenced ``text`` block, not Mermaid: every Markdown renderer shows it (GitHub, GitLab, the e-mail and mobile
notifications, a terminal's ``gh pr view``), with slices at their real place, and it is the terminal's drawing
itself, so it cannot disagree with it (docs/pr-previews.md says more). Inside the fence there is only catalog text
(models, profiles) and our glyphs; the pool's name goes in the line above it, Markdown-escaped. Unchanged pools
are not drawn.
"""

from __future__ import annotations

from typing import Sequence

from ..domain.mig_drawing import GpuPicture, Picture, PoolPicture
from ..untrusted.text import markdown_safe, terminal_safe
from .text import BOXES, gpu_lines


def changed_layouts(before: Picture | None, after: Picture, changed: Sequence[str]) -> list[str]:
    """The block of each pool in ``changed`` (pool names, in order); nothing when none is drawn."""
    old = {pool.name: pool for pool in before.pools} if before is not None else {}
    new = {pool.name: pool for pool in after.pools}
    lines: list[str] = []
    for name in changed:
        if name not in old and name not in new:
            continue
        lines += ["", f"**{markdown_safe(name)}**: GPU layout before and after (memory slices left to right)", ""]
        lines += ["```text"] + _side("before", old.get(name), before is None) + _side("after", new.get(name), False)
        lines.append("```")
    if lines and before is not None:
        lines += [f"\n> note: {markdown_safe(note)}" for note in before.notes]
    return lines


def _side(when: str, pool: PoolPicture | None, unknown: bool) -> list[str]:
    if pool is None:
        why = "not in the base plan (planned before gpupools drew layouts)" if unknown else "no pool"
        return [f"{when}: {why}"]
    shapes: list[GpuPicture] = list(dict.fromkeys(gpu.shape for gpu in pool.node_gpus))
    lines = []
    for gpu in shapes:
        alike = sum(1 for other in pool.node_gpus if other.shape == gpu)
        lines.append(f"{when}: {_plain(gpu.describe())} ({alike} per node, {_count(pool.nodes_in_pool, 'node')})")
        lines += [_plain(line) for line in gpu_lines(gpu, BOXES)]
    return lines


def _plain(text: str) -> str:
    """Printable, and no backtick that could close the fence."""
    return terminal_safe(text).replace("`", "'")


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"
