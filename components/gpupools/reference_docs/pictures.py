"""The docs site's pictures (``docs/pictures/*.svg``): the real answers to the shipped examples, drawn by the same
renderer as ``fit --svg`` and ``plan --svg``.

``python -m gpupools.reference_docs.pictures`` writes them (through ``untrusted.atomic_file``); ``--check`` writes
nothing and exits 1 while one is stale (``tests/release/test_docs_pictures.py`` fails the same way). Fits use the
packaged price snapshot, never a local price cache, so every machine draws the same answer.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from ..config.demand import read_demand_file
from ..config.loading import read_stack_file
from ..domain.mig_drawing import stack_picture
from ..fit.answer import fit_demand
from ..pictures.from_fit import fit_picture
from ..pictures.svg import render_svg
from ..price_lists.book import snapshot
from ..resolve.stack_loader import load_stack
from ..untrusted.atomic_file import write_atomically
from ..untrusted.files import read_text
from ..untrusted.text import shown

PICTURES_DIR = "docs/pictures"
REGENERATE_PICTURES = "python -m gpupools.reference_docs.pictures"


def _fit(demand_file: str) -> Callable[[Path], str]:
    def draw(root: Path) -> str:
        answer = fit_demand(read_demand_file(root / demand_file), snapshot())
        size = answer.chosen.request.size
        title = f"gpupools fit {demand_file}: {size.name} ({size.gpus}x {size.gpu.name} per node)"
        return render_svg(fit_picture(answer.chosen), title)

    return draw


def _stack(stack_file: str) -> Callable[[Path], str]:
    def draw(root: Path) -> str:
        read = read_stack_file(root / stack_file)
        stack = load_stack(read.config)
        return render_svg(stack_picture(stack.pools), f"gpupools plan --config {stack_file} --svg")

    return draw


# file under docs/pictures -> how it is drawn, from a file of the repository
PICTURES: dict[str, Callable[[Path], str]] = {
    "fit-demand.svg": _fit("examples/demand.yaml"),
    "mig-eks.svg": _stack("Pulumi.eks.yaml"),
    "capacity-existing.svg": _stack("Pulumi.existing.yaml"),
}


def pictures(root: Path) -> dict[str, str]:
    """Each picture's file name under ``docs/pictures`` and its SVG text, drawn from the repository at ``root``."""
    return {name: draw(root) for name, draw in PICTURES.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=REGENERATE_PICTURES, description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a picture differs")
    args = parser.parse_args(argv)
    root = Path.cwd()
    stale = []
    for name, text in pictures(root).items():
        path = root / PICTURES_DIR / name
        if path.exists() and read_text(path, "docs picture") == text:
            continue
        stale.append(str(path))
        if not args.check:
            write_atomically(path, text.encode("utf-8"), "docs picture")
            print(shown(f"wrote {path}", cut_values=False))
    if args.check and stale:
        print(
            shown(f"stale: {', '.join(stale)}; regenerate with: {REGENERATE_PICTURES}", cut_values=False),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
