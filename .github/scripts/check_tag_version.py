"""Refuse a release tag that does not name the version in components/gpupools/_version.py.

Usage: check_tag_version.py TAG [VERSION_FILE]. On a match prints ``version=X.Y.Z`` (for
$GITHUB_OUTPUT) and exits 0; otherwise prints a ``::error::`` line on stderr and exits 1. The version
file is parsed, not imported, so the check runs before anything is installed.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

DEFAULT_VERSION_FILE = Path(__file__).resolve().parents[2] / "components" / "gpupools" / "_version.py"
TAG = re.compile(r"v(\d+\.\d+\.\d+)")


def declared_version(path: Path) -> str:
    """The string assigned to ``__version__`` in the file at ``path``."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value
    raise ValueError(f"{path} assigns no string to __version__")


def tag_problem(tag: str, version: str) -> str | None:
    """Why ``tag`` cannot release ``version``, or None when it can."""
    match = TAG.fullmatch(tag)
    if not match:
        return f"tag {tag!r} is not of the form vX.Y.Z"
    if match.group(1) != version:
        return f"tag {tag!r} does not match __version__ = {version!r} in _version.py: bump the version or fix the tag"
    return None


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: check_tag_version.py TAG [VERSION_FILE]", file=sys.stderr)
        return 2
    tag = argv[1]
    version = declared_version(Path(argv[2]) if len(argv) == 3 else DEFAULT_VERSION_FILE)
    problem = tag_problem(tag, version)
    if problem:
        # stderr: stdout goes to $GITHUB_OUTPUT, where the annotation would be lost.
        print(f"::error title=Release refused::{problem}", file=sys.stderr)
        return 1
    print(f"version={version}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
