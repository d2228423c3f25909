"""``python -m gpupools.reference_docs [--check] [--out DIR]``: write the generated reference pages (default
``docs/reference``, run from the repository root), or with ``--check`` only say which committed page is stale."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..untrusted.atomic_file import write_atomically
from ..untrusted.files import FileRefused, read_text
from . import REFERENCE_DIR, REGENERATE, pages

MAX_PAGE_BYTES = 4 << 20


def _committed(path: Path) -> str | None:
    """The page as it is now; None when there is none (or it cannot be read: it is written anew)."""
    try:
        return read_text(path, "reference page", MAX_PAGE_BYTES)
    except FileRefused:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpupools.reference_docs", description=__doc__)
    parser.add_argument("--out", default=REFERENCE_DIR, help=f"the folder of the pages (default {REFERENCE_DIR})")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page differs")
    args = parser.parse_args(argv)
    out = Path(args.out)
    stale = []
    for name, text in pages().items():
        path = out / name
        if _committed(path) == text:
            continue
        stale.append(str(path))
        if not args.check:
            write_atomically(path, text.encode("utf-8"), "reference page")
    if args.check and stale:
        print(f"stale: {', '.join(stale)}; regenerate with: {REGENERATE}", file=sys.stderr)
        return 1
    for path in stale if not args.check else []:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
