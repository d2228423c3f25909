"""``gpupools fit`` over a curve of demand sizes: solve time, process wall and peak memory (issue 35).

Run ``python benchmarks/fit.py`` (table) or ``--json``. For 100, 1,000, 10,000 and 100,000 replicas, and the demand
schema's limit (``MAX_WORKLOADS`` workloads of ``MAX_REPLICAS`` replicas), each case is a seeded random demand over
the A100-40GB profiles 1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb and 7g.40gb (workloads of at most
``MAX_REPLICAS``), fitted on p4d.24xlarge alone and across every AWS size with MIG and a price in us-east-1 (the
other GPUs take the equivalent profiles). "solve" is ``fit_demand`` in this process (wall and CPU time); "wall",
"cpu" and "peak" are a fresh ``python -m gpupools fit DEMAND --json`` process: its wall time, its CPU time and its
peak resident memory. The fit runs on one thread, so CPU time is the wall time of an idle machine. **Targets**: solve at
most 1 s, wall at most 2 s, on 2 cores. A benchmark, not a timed test: the machine's load decides the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "components"))

from gpupools.catalog.prices import snapshot  # noqa: E402
from gpupools.config.demand import MAX_REPLICAS, MAX_WORKLOADS, parse_demand  # noqa: E402
from gpupools.fit.answer import fit_demand  # noqa: E402

PROFILES = ("1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")
CURVE = (100, 1_000, 10_000, 100_000, MAX_WORKLOADS * MAX_REPLICAS)
TARGET_SOLVE, TARGET_WALL = 1.0, 2.0


def demand(seed: int, replicas: int, size: str | None) -> dict:
    """``replicas`` split over workloads of at most ``MAX_REPLICAS``, each on a random profile, some whole GPUs."""
    chooser = random.Random(seed)
    workloads = []
    left = replicas
    while left:
        count = left if replicas == MAX_WORKLOADS * MAX_REPLICAS else min(left, chooser.randint(1, MAX_REPLICAS))
        count = min(count, MAX_REPLICAS)
        if len(workloads) == MAX_WORKLOADS - 1:
            count = min(left, MAX_REPLICAS)
        profile = chooser.choice(PROFILES)
        workloads.append({"name": f"w{len(workloads)}", "slice": profile, "count": count})
        left -= count
    raw = {"cloud": "aws", "region": "us-east-1", "workloads": workloads}
    return {**raw, "size": size} if size else raw


def _process(raw: dict) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak resident MiB of ``gpupools fit`` on ``raw`` in a fresh process (CPU time
    is what the wall would be on an idle machine: the fit runs on one thread)."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as file:
        json.dump(raw, file)  # JSON is YAML
    env = {**os.environ, "PYTHONPATH": str(ROOT / "components")}
    try:
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "gpupools", "fit", file.name, "--json"], stdout=subprocess.DEVNULL, env=env
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        assert os.waitstatus_to_exitcode(status) == 0, raw
    finally:
        os.unlink(file.name)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    book = snapshot()
    rows = []
    for replicas in CURVE:
        for size in ("p4d.24xlarge", None):
            for seed in range(args.seeds):
                raw = demand(seed, replicas, size)
                parsed = parse_demand(raw)
                start, cpu_start = time.perf_counter(), time.process_time()
                chosen = fit_demand(parsed, book).chosen
                solve, solve_cpu = time.perf_counter() - start, time.process_time() - cpu_start
                wall, cpu, peak = _process(raw)
                rows.append(
                    {
                        "replicas": replicas,
                        "workloads": len(raw["workloads"]),
                        "sizes": size or "all",
                        "seed": seed,
                        "solveSeconds": round(solve, 3),
                        "solveCpuSeconds": round(solve_cpu, 3),
                        "wallSeconds": round(wall, 3),
                        "cpuSeconds": round(cpu, 3),
                        "peakMiB": round(peak, 1),
                        "chosen": chosen.request.size.name,
                        "nodes": chosen.nodes,
                        "gpus": chosen.gpus,
                        "proven": chosen.proven,
                        "provenLayouts": chosen.solution.proven_layouts,
                    }
                )
    curve = []
    for replicas in CURVE:
        mine = [row for row in rows if row["replicas"] == replicas]
        curve.append(
            {
                "replicas": replicas,
                "worstSolve": max(row["solveSeconds"] for row in mine),
                "worstSolveCpu": max(row["solveCpuSeconds"] for row in mine),
                "worstWall": max(row["wallSeconds"] for row in mine),
                "worstCpu": max(row["cpuSeconds"] for row in mine),
                "worstPeakMiB": max(row["peakMiB"] for row in mine),
                "proven": sum(row["proven"] for row in mine),
                "cases": len(mine),
            }
        )
    if args.json:
        print(json.dumps({"targets": {"solve": TARGET_SOLVE, "wall": TARGET_WALL}, "curve": curve, "cases": rows}))
        return 0
    header = f"{'replicas':>9} {'sizes':13} {'seed':>4} {'solve s':>7} {'wall s':>6} {'cpu s':>5} {'peak MiB':>8}"
    print(f"{header} {'chosen':14} nodes proven")
    for row in rows:
        print(
            f"{row['replicas']:>9} {row['sizes']:13} {row['seed']:>4} {row['solveSeconds']:>7.3f} "
            f"{row['wallSeconds']:>6.2f} {row['cpuSeconds']:>5.2f} {row['peakMiB']:>8.1f} {row['chosen']:14} "
            f"{row['nodes']:>5} {row['proven']}"
        )
    print(
        f"\n{'replicas':>9} {'worst solve s':>13} {'solve cpu s':>11} {'worst wall s':>12} {'worst cpu s':>11} "
        f"{'peak MiB':>8} proven"
    )
    for point in curve:
        print(
            f"{point['replicas']:>9} {point['worstSolve']:>13.3f} {point['worstSolveCpu']:>11.3f} "
            f"{point['worstWall']:>12.2f} "
            f"{point['worstCpu']:>11.2f} "
            f"{point['worstPeakMiB']:>8.1f} {point['proven']}/{point['cases']}"
        )
    print(
        f"targets: solve <= {TARGET_SOLVE:g} s, wall <= {TARGET_WALL:g} s on 2 cores; load now {os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
