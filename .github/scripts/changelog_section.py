"""Print one version's section of CHANGELOG.md (Keep a Changelog format), for the GitHub release notes.

Usage: changelog_section.py VERSION [CHANGELOG]. The section is everything under ``## [VERSION]`` up to
the next ``## `` heading or the link definitions at the end. Exits 1 with a ``::error::`` line on stderr
when the version has no section or the section is empty: a release without notes is a mistake.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DEFAULT_CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"
LINK_DEFINITION = re.compile(r"^\[[^\]]+\]:\s")


def section(changelog: str, version: str) -> str | None:
    """The body of ``version``'s section, stripped, or None when there is no such heading."""
    heading = re.compile(rf"^## \[{re.escape(version)}\](\s|$)")
    lines = changelog.splitlines()
    start = next((i for i, line in enumerate(lines) if heading.match(line)), None)
    if start is None:
        return None
    body: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith("## ") or LINK_DEFINITION.match(line):
            break
        body.append(line)
    return "\n".join(body).strip()


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: changelog_section.py VERSION [CHANGELOG]", file=sys.stderr)
        return 2
    version = argv[1]
    path = Path(argv[2]) if len(argv) == 3 else DEFAULT_CHANGELOG
    body = section(path.read_text(encoding="utf-8"), version)
    if not body:
        state = "has no section" if body is None else "has an empty section"
        print(f"::error file={path.name}::{path.name} {state} for version {version}", file=sys.stderr)
        return 1
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
