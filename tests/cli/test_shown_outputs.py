"""Every command output shown in the README and the docs is what the command prints now (``support.shown_outputs``:
a marker before each block says how to make it). A stale block fails, naming the command that regenerates it."""

from __future__ import annotations

import re

import pytest

from support import shown_outputs
from support.shown_outputs import ROOT, blocks, generated, pages

MARKED = [(page, script) for page in pages() for script, _ in blocks(page)]
FIX = ".venv/bin/python tests/support/shown_outputs.py --write"


@pytest.mark.parametrize(
    ("page", "script"), MARKED, ids=[f"{p.relative_to(ROOT)}:{s.splitlines()[-1][:40]}" for p, s in MARKED]
)
def test_a_shown_output_is_what_the_command_prints(page, script):
    (body,) = [shown for marked, shown in blocks(page) if marked == script][:1] or [None]
    assert body == generated(script), f"{page.relative_to(ROOT)} is stale: {FIX}"


def test_every_shown_gpupools_run_has_a_marker():
    """A block that shows ``$ gpupools ...`` (a command and its output) is made by a marker: ``<!-- output``, or
    a page's own (``<!-- fit:answer -->``, ``<!-- verify:waiting -->``, each with its test); only command lists
    without output (```sh blocks) are free text."""
    unmarked = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        marked = {match.start("fence") for match in shown_outputs.BLOCK.finditer(text)}
        marked |= {match.end() for match in re.finditer(r"<!-- (fit|verify):[a-z]+ -->\n", text)}
        for match in re.finditer(r"^```[a-z]*\n(?P<body>.*?)^```", text, re.S | re.M):
            if re.search(r"^\$ gpupools ", match["body"], re.M) and match.start() not in marked:
                unmarked.append(f"{page.relative_to(ROOT)}:{text[: match.start()].count(chr(10)) + 1}")
    assert unmarked == []


def test_a_changed_output_is_caught(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    script = "gpupools check --stack dev\n"
    real = generated(script)
    page.write_text(f"<!-- output\n{script}-->\n```\n{real.replace('valid', 'VALID')}```\n")
    assert shown_outputs.stale(page) == [script]
    assert shown_outputs.write(page) and shown_outputs.stale(page) == []
    assert real.startswith("$ gpupools check --stack dev\nstack dev (azure): config valid\n")
