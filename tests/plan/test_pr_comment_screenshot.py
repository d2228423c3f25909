"""The MIG1g -> MIG3g pull request comment rendered once in headless Chromium at GitHub's comment width.

Skips cleanly without /usr/bin/chromium (or without markdown-it-py): the structure test
(test_pr_comment_structure.py) is the check that always runs; this one catches what only a browser shows, a table
wider than the page.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
WIDTH = 900  # GitHub's comment column, about

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")
markdown_it = pytest.importorskip("markdown_it")


def test_the_comment_renders_no_wider_than_the_page(tmp_path: Path) -> None:
    from test_pr_comment_structure import _part  # the same comment the structure test reads

    body = markdown_it.MarkdownIt("commonmark").enable("table").render(_part(tmp_path / "c", "gpu", "MIG3g"))
    page = tmp_path / "comment.html"
    page.write_text(
        "<!doctype html><meta charset=utf-8><style>body{font:14px sans-serif;margin:0;width:"
        f"{WIDTH}px}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:4px}}</style>"
        f"<body>{body}<script>document.title=String(document.documentElement.scrollWidth)</script>"
    )
    shot = tmp_path / "comment.png"
    # One browser start for both (Chromium's headless mode takes a screenshot and dumps the DOM in one run); an
    # older headless mode does one of them per run, so what it left out is asked for again.
    run = _chromium(page, f"--screenshot={shot}", "--dump-dom")
    assert run.returncode == 0, run.stderr[-2000:]
    if not shot.exists():
        assert _chromium(page, f"--screenshot={shot}").returncode == 0
    assert shot.stat().st_size > 0
    dumped = run if "<title>" in run.stdout else _chromium(page, "--dump-dom")
    title = dumped.stdout.split("<title>", 1)[-1].split("</title>", 1)[0]
    assert title.isdigit() and int(title) <= WIDTH + 40, title


def _chromium(page: Path, *actions: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={WIDTH},2000", *actions]
        + [page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
