"""The golden outputs: the exact stdout of ``gpupools plan --json``, ``gpupools check --json`` and
``gpupools plan --format markdown`` for every repository stack file, whole, and the runner that prints them for
the chart test variants too.

They pin the CLI's output byte for byte, so a refactor that should change nothing can be checked to
change nothing. The files in ``tests/golden/`` are named ``<stack>.plan.json``, ``<stack>.check.json`` and
``<stack>.plan.md``, one set per repository stack (``Pulumi.<stack>.yaml`` at the root, run by its path, so
its own ``Pulumi.yaml`` project and ``infra/`` program plan it). A mode variant of one
(``chart_variants.MODE_VARIANTS``) is mostly its stack's output again, so only what it changes is pinned, as a
syrupy snapshot (``tests/plan/test_variant_snapshots.py``; ``pytest tests/plan/test_variant_snapshots.py
--snapshot-update`` rewrites it).

A variant is an in-memory stack file: it is written as ``Pulumi.<variant id>.yaml`` (``yaml.safe_dump``)
into a fresh temporary folder and the CLI plans that path. That folder holds a ``Pulumi.yaml`` naming the
project ``gpupools`` and a ``__main__.py`` running the packaged program (as ``infra/`` does), so nothing above the
temporary folder can change the result. The outputs contain neither the path nor
anything else machine-specific, so nothing is normalised: the bytes compared are the bytes printed.

The CLI runs in-process (``gpupools.cli.main``) with stdout and stderr captured; each run must exit 0
and print nothing on stderr.

Regenerate the stacks' files after an intended change of output (then review the diff of ``tests/golden/``)::

    .venv/bin/python tests/support/golden.py --write

Without ``--write`` it compares and prints a short diff per file that differs (exit status 1).
"""

from __future__ import annotations

import argparse
import difflib
import functools
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

if __name__ == "__main__":  # run as a script: make the test helpers importable as when pytest runs
    # tests/, in place of this script's own folder: tests/support/packaging.py would shadow the real ``packaging``.
    sys.path[0] = str(Path(__file__).resolve().parents[1])
    import os  # and price plans from the packaged snapshot, as tests/conftest.py does

    os.environ["GPUPOOLS_PRICE_CACHE"] = str(Path(__file__).resolve().parents[1] / "no-price-cache.json")
    os.environ["GPUPOOLS_OFFERS_CACHE"] = str(Path(__file__).resolve().parents[1] / "no-offers-cache.json")
    os.environ["SOURCE_DATE_EPOCH"] = "1795564800"  # 2026-11-25 UTC, as tests/conftest.py sets it

from support.chart_variants import MODE_VARIANTS, REPO, STACK_FILES, Variant, variant_stack_file  # noqa: E402
from support.cli import run_cli  # noqa: E402
from support.plan_once import one_program_run_per_stack_file  # noqa: E402
from gpupools.config import read_stack_file  # noqa: E402

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
# The file suffix of each output, and the arguments after ``--config PATH`` that print it.
OUTPUTS: dict[str, tuple[str, ...]] = {
    "plan.json": ("plan", "--json"),
    "check.json": ("check", "--json"),
    "plan.md": ("plan", "--format", "markdown"),
}
PROJECT_FILE = "name: gpupools\nruntime: python\n"
# The project's program is the packaged one, as in infra/__main__.py: what pulumi up would run in that folder.
PROGRAM_FILE = "from gpupools.platform.program import main\n\nmain()\n"


@dataclass(frozen=True)
class Case:
    """A repository stack file (``variant`` None) or a mode variant of one (``name`` is the variant's id)."""

    name: str
    variant: Variant | None = None


CASES: list[Case] = [Case(stack) for stack in STACK_FILES]  # the ones with whole golden files
VARIANT_CASES: list[Case] = [Case(variant.id, variant) for variant in MODE_VARIANTS]


def golden_path(case: Case, output: str) -> Path:
    return GOLDEN / f"{case.name}.{output}"


def expected_files() -> set[str]:
    return {golden_path(case, output).name for case in CASES for output in OUTPUTS}


def cli_stdout(args: list[str]) -> bytes:
    """The exact stdout of ``gpupools <args>``, run in-process; anything on stderr or a non-zero exit fails."""
    run = run_cli(*args)
    if run.code != 0 or run.err:
        raise AssertionError(f"gpupools {' '.join(args)} exited {run.code}: {run.err[-2000:]}")
    return run.out.encode("utf-8")


@functools.cache
def outputs(case: Case) -> dict[str, bytes]:
    """Each output of the case, keyed by its file suffix; run once per session (a stack's outputs are also the
    base of its variants' snapshots), its program once for all of them."""
    with one_program_run_per_stack_file():
        return _outputs(case)


def _outputs(case: Case) -> dict[str, bytes]:
    if case.variant is None:
        return {
            output: cli_stdout([args[0], "--config", str(REPO / f"Pulumi.{case.name}.yaml"), *args[1:]])
            for output, args in OUTPUTS.items()
        }
    stack_file = variant_stack_file(case.variant)
    with tempfile.TemporaryDirectory(prefix="gpupools-golden-") as folder:
        (Path(folder) / "Pulumi.yaml").write_text(PROJECT_FILE, encoding="utf-8")
        (Path(folder) / "__main__.py").write_text(PROGRAM_FILE, encoding="utf-8")
        path = Path(folder) / f"Pulumi.{case.name}.yaml"
        path.write_text(yaml.safe_dump({"config": stack_file.config}, sort_keys=False), encoding="utf-8")
        written = read_stack_file(path)
        assert (written.stack, written.config) == (stack_file.stack, stack_file.config), (
            f"{case.name}: the written stack file does not read back as the variant"
        )
        results = {output: cli_stdout([args[0], "--config", str(path), *args[1:]]) for output, args in OUTPUTS.items()}
    for output, data in results.items():  # a path in the output would differ on every run and machine
        assert folder.encode() not in data, f"{case.name}.{output}: the output contains the temporary path"
    return results


def short_diff(expected: bytes, actual: bytes, name: str, limit: int = 40) -> str:
    """A unified diff of at most ``limit`` lines (the bytes compared are UTF-8 text)."""
    lines = list(
        difflib.unified_diff(
            expected.decode("utf-8", "replace").splitlines(keepends=True),
            actual.decode("utf-8", "replace").splitlines(keepends=True),
            f"tests/golden/{name} (expected)",
            f"{name} (today)",
            n=2,
        )
    )
    if not lines and expected != actual:
        lines = ["(the texts differ only in bytes the line diff does not show, e.g. a final newline)\n"]
    shown = lines[:limit] + ([f"... {len(lines) - limit} more diff lines\n"] if len(lines) > limit else [])
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in shown)


def mismatches(case: Case) -> list[str]:
    """A short diff per output of the case that differs from its golden file (or a note if the file is missing)."""
    problems = []
    for output, actual in outputs(case).items():
        path = golden_path(case, output)
        if not path.is_file():
            problems.append(f"{path.name}: no golden file (run tests/support/golden.py --write)")
        elif (expected := path.read_bytes()) != actual:
            problems.append(short_diff(expected, actual, path.name))
    return problems


def write() -> int:
    GOLDEN.mkdir(exist_ok=True)
    for stale in sorted({path.name for path in GOLDEN.iterdir()} - expected_files()):
        (GOLDEN / stale).unlink()
        print(f"removed {stale}")
    for case in CASES:
        for output, data in outputs(case).items():
            golden_path(case, output).write_bytes(data)
    print(f"wrote {len(CASES) * len(OUTPUTS)} files for {len(CASES)} cases in {GOLDEN}")
    return 0


def compare() -> int:
    problems = [problem for case in CASES for problem in mismatches(case)]
    problems += (
        [
            f"{name}: no case makes it (stale)"
            for name in sorted({path.name for path in GOLDEN.iterdir()} - expected_files())
        ]
        if GOLDEN.is_dir()
        else []
    )
    print("\n".join(problems) if problems else f"{len(CASES) * len(OUTPUTS)} golden files match")
    return 1 if problems else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate tests/golden/ from today's code")
    sys.exit(write() if parser.parse_args().write else compare())
