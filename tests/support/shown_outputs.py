"""Every command output the README and the docs show is a real run's: each shown block follows a marker that says
how to make it, and ``tests/cli/test_shown_outputs.py`` runs it and compares. Regenerate after a change on purpose:
``.venv/bin/python tests/support/shown_outputs.py --write``.

A marker is an HTML comment (invisible on GitHub and in the site) right before a fenced block::

    <!-- output
    gpupools plan --stack dev --json > base.json   # on the base branch
    edit Pulumi.dev.yaml: profile: MIG1g => profile: 3g.20gb
    gpupools plan --stack dev --base base.json
    -->

Each ``gpupools ...`` line runs in this process (``support.cli.run_cli``), from a copy of the project's stack files
(``Pulumi.yaml``, ``Pulumi.*.yaml``, ``infra/``, ``examples/``), and is shown as ``$ <line>`` followed by what it
printed (stdout, then stderr), unless its stdout goes to a file (``> FILE``); ``| head -n N`` keeps the first N
lines of what it printed, ``| tail -n N`` the last N. A ``#`` comment is shown, not run.
``edit FILE: OLD => NEW`` changes the copy (OLD must occur once) and is not shown. A marker whose first line is
``output-only`` shows the outputs without the ``$`` lines. Each distinct marker runs once per process.

Why not a tool: the README is read on GitHub, where nothing runs at build time, so its outputs must be committed
text; markdown-exec runs commands only while MkDocs builds the site, and pytest-examples checks Python code blocks,
not command lines. This keeps both the README and the site as plain Markdown, checked by a test.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
# The marker, then the fenced block it makes: its opening fence line and body are kept apart for rewriting.
BLOCK = re.compile(
    r"(?P<marker><!-- output\n(?P<script>.*?)-->\n)(?P<fence>```[a-z]*\n)(?P<body>.*?)(?P<end>```)", re.S
)
COPIED = ("Pulumi.yaml", "infra", "examples")


def pages() -> list[Path]:
    """The README and every page of the docs site (not the generated reference pages)."""
    docs = sorted(path for path in (ROOT / "docs").rglob("*.md") if "reference" not in path.parts)
    return [ROOT / "README.md", *docs]


def blocks(path: Path) -> list[tuple[str, str]]:
    """(script, shown body) of each marked block of ``path``."""
    return [(match["script"], match["body"]) for match in BLOCK.finditer(path.read_text(encoding="utf-8"))]


@contextmanager
def _project_copy() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="gpupools-shown-") as folder:
        copy = Path(folder)
        for name in COPIED:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(source, copy / name)
        for stack in ROOT.glob("Pulumi.*.yaml"):
            shutil.copy(stack, copy / stack.name)
        yield copy


@functools.cache
def generated(script: str) -> str:
    """What the block of ``script`` shows when its steps run now."""
    from support.cli import run_cli

    lines = [line for line in script.splitlines() if line.strip()]
    show_commands = not (lines and lines[0].strip() == "output-only")
    lines = lines[1:] if not show_commands else lines
    shown: list[str] = []
    here = os.getcwd()
    with _project_copy() as project:
        os.chdir(project)
        try:
            for line in lines:
                if line.startswith("edit "):
                    _edit(project, line.removeprefix("edit "))
                    continue
                words = shlex.split(line, comments=True)
                if not words or words[0] != "gpupools":
                    raise ValueError(f"a marker step is 'gpupools ...' or 'edit FILE: OLD => NEW', not {line!r}")
                target, head = None, None
                if "|" in words:
                    words, pipe = words[: words.index("|")], words[words.index("|") + 1 :]
                    if (
                        pipe[0] not in ("head", "tail")
                        or pipe[1:2] != ["-n"]
                        or len(pipe) != 3
                        or not pipe[2].isdigit()
                    ):
                        raise ValueError(f"the pipes a marker knows are '| head -n N' and '| tail -n N', not {line!r}")
                    head = slice(None, int(pipe[2])) if pipe[0] == "head" else slice(-int(pipe[2]), None)
                if ">" in words:
                    words, target = words[: words.index(">")], words[words.index(">") + 1]
                run = run_cli(*words[1:])
                if show_commands:
                    shown.append(f"$ {line}")
                if target is not None:
                    (project / target).write_text(run.out, encoding="utf-8")
                    shown.append(run.err.rstrip("\n")) if run.err else None
                    continue
                text = "\n".join((run.out + run.err).rstrip("\n").splitlines()[head or slice(None)])
                if text:
                    shown.append(text)
        finally:
            os.chdir(here)
    return "\n".join(shown) + "\n"


def _edit(project: Path, step: str) -> None:
    name, _, change = step.partition(": ")
    old, _, new = change.partition(" => ")
    path = project / name
    text = path.read_text(encoding="utf-8")
    if text.count(old) != 1:
        raise ValueError(f"edit {name}: {old!r} occurs {text.count(old)} times, not once")
    path.write_text(text.replace(old, new), encoding="utf-8")


def stale(path: Path) -> list[str]:
    """The scripts of ``path`` whose block no longer shows what they print."""
    return [script for script, body in blocks(path) if body != generated(script)]


def write(path: Path) -> bool:
    """Rewrite every marked block of ``path`` with what its script prints now; True when the file changed."""
    text = path.read_text(encoding="utf-8")
    new = BLOCK.sub(lambda m: m["marker"] + m["fence"] + generated(m["script"]) + m["end"], text)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    # Not this folder (its packaging.py would hide the packaging distribution), but the package and tests/.
    sys.path[:] = [str(ROOT / "components"), str(ROOT / "tests")] + [
        entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent
    ]
    os.environ.setdefault("GPUPOOLS_PRICE_CACHE", str(ROOT / "tests" / "no-price-cache.json"))
    os.environ.setdefault("GPUPOOLS_OFFERS_CACHE", str(ROOT / "tests" / "no-offers-cache.json"))
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1795564800")  # tests/conftest.py's plan date
    for page in pages():
        if write(page):
            print(f"rewrote {page.relative_to(ROOT)}")
