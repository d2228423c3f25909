"""``benchmarks/plan_instructions.py`` reads cachegrind's count and says plainly when valgrind is missing.

A whole run takes minutes under valgrind, so it is not run here; ``benchmarks/README.md`` has its figures.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "benchmarks" / "plan_instructions.py"

# The end of what valgrind 3.x prints for `--tool=cachegrind --cache-sim=no` (its pid and counts vary).
CACHEGRIND_STDERR = """\
==18031== Cachegrind, a high-precision tracing profiler
==18031== Copyright (C) 2002-2017, and GNU GPL'd, by Nicholas Nethercote et al.
==18031== Command: python benchmarks/plan.py --child plan Pulumi.aks-1.yaml --out r.json
==18031==
==18031==
==18031== I   refs:      4,807,725,630
"""


def _module():
    if not SCRIPT.is_file():
        pytest.skip("not run from the gpupools repository")
    spec = importlib.util.spec_from_file_location("bench_plan_instructions", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_count_is_cachegrinds_instruction_total() -> None:
    assert _module().instructions(CACHEGRIND_STDERR) == 4_807_725_630


def test_an_output_without_a_count_is_an_error_not_zero() -> None:
    with pytest.raises(SystemExit, match="no single instruction count"):
        _module().instructions("==1== Cachegrind, a high-precision tracing profiler\n")


def test_without_valgrind_it_says_so_and_exits_2(tmp_path: Path) -> None:
    if not SCRIPT.is_file():
        pytest.skip("not run from the gpupools repository")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": str(tmp_path)},  # an empty folder: no valgrind to find
    )
    assert proc.returncode == 2 and "valgrind is not installed" in proc.stderr
