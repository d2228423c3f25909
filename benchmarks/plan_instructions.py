"""``benchmarks/plan.py``'s two targets counted in instructions, which a shared VM does not move.

On a 2-core VM the wall and CPU times of one cold plan move by a fifth from run to run, so a change of a few percent
per pool is lost in ``plan.py``'s noise. This runs the same child processes (the same stack files, the plan, then
the floor of the SDK modules that plan executed) once each, after an uncounted warm-up plan, under valgrind's
cachegrind (``--cache-sim=no``, hash seed fixed), and counts the instructions they execute. Repeated runs agree to
about 0.2%.

An instruction is not a millisecond (cache misses, page faults and the interpreter's start are not in it), so the
targets stay judged in time by ``plan.py``; this says whether a change moved the plan's own work, and by how much:
the ratio at 1 pool and each added pool as a share of the floor, beside the targets.

Usage: ``python benchmarks/plan_instructions.py [--pools 1,50] [--json]``; needs ``valgrind`` on PATH (exit 2
without it). Each child runs 30 to 60 s under valgrind; two run at a time.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from plan import MAX_RATIO, MAX_SLOPE_SHARE, parse_pools  # noqa: E402
from plan_children import floor_modules_file, run_child, run_wrapped_child, write_floor_modules  # noqa: E402
from plan_stacks import STACKS, write_stack  # noqa: E402

_INSTRUCTIONS = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)\s*$", re.MULTILINE)


def instructions(valgrind_stderr: str) -> int:
    """The ``I refs`` total cachegrind prints at exit."""
    found = _INSTRUCTIONS.findall(valgrind_stderr)
    if len(found) != 1:
        raise SystemExit(f"no single instruction count in valgrind's output:\n{valgrind_stderr[-2000:]}")
    return int(found[0].replace(",", ""))


CACHEGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]


def counted_child(args: list[str], work: Path) -> tuple[int, dict[str, Any]]:
    """One ``plan.py --child`` run under cachegrind: its instruction count and its own JSON result."""
    result, stderr = run_wrapped_child(args, work, CACHEGRIND, {"PYTHONHASHSEED": "0"})
    return instructions(stderr), result


def measure(pools: list[int], work: Path) -> dict[str, Any]:
    low, high = pools[0], pools[-1]
    paths = {(stack, n): write_stack(work, stack, n) for stack in STACKS for n in (low, high)}
    for stack in STACKS:  # not counted: compiles what the plans import, as an installed package has it compiled
        run_child(["plan", str(paths[(stack, high)])], work)
    with ThreadPoolExecutor(max_workers=2) as pool:
        plans = dict(zip(paths, pool.map(lambda path: counted_child(["plan", str(path)], work), paths.values())))
        for stack in STACKS:
            write_floor_modules(work, stack, [run for (name, _), (_, run) in plans.items() if name == stack])
        floors = dict(
            zip(STACKS, pool.map(lambda s: counted_child(["floor", str(floor_modules_file(work, s))], work)[0], STACKS))
        )
    results: dict[str, Any] = {"pools": [low, high], "targets": {"max_ratio": MAX_RATIO, "max_slope": MAX_SLOPE_SHARE}}
    for stack in STACKS:
        base, top, floor = plans[(stack, low)][0], plans[(stack, high)][0], floors[stack]
        per_pool = (top - base) / (high - low) if high > low else None
        results[stack] = {
            "plan_instructions": {str(low): base, str(high): top},
            "floor_instructions": floor,
            "ratio": base / floor,
            "per_pool_instructions": per_pool,
            "per_pool_share_of_floor": per_pool / floor if per_pool is not None else None,
        }
    return results


def table(results: dict[str, Any]) -> str:
    low, high = results["pools"]
    lines = [f"instructions (millions), one cold run each under cachegrind, {low} and {high} pools"]
    for stack in STACKS:
        row = results[stack]
        plan = row["plan_instructions"]
        share = row["per_pool_share_of_floor"]
        lines.append(
            f"{stack}: plan {plan[str(low)] / 1e6:.0f} / {plan[str(high)] / 1e6:.0f}, floor "
            f"{row['floor_instructions'] / 1e6:.0f}; ratio {row['ratio']:.2f} (target <= {MAX_RATIO})"
            + (
                f", {row['per_pool_instructions'] / 1e6:.2f}M per pool = {100 * share:.2f}% of the floor "
                f"(target <= {100 * MAX_SLOPE_SHARE:.1f}%)"
                if share is not None
                else ""
            )
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--pools", type=parse_pools, default=[1, 50], help="comma-separated; the lowest and highest")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("plan_instructions.py: valgrind is not installed (e.g. apt-get install valgrind)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        results = measure(args.pools, Path(folder))
    print(json.dumps(results, indent=2) if args.json else table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
