"""``gpupools fit`` on 300 slices: wall time and whether the answer is proven (issue 29: under 10 s on 2 cores).

Run ``python benchmarks/fit.py`` (table) or ``--json``. Each case is a seeded random mix of 300 replicas over the
A100-40GB profiles 1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb and 7g.40gb, fitted on p4d.24xlarge alone and across
every AWS size with MIG and a price in us-east-1 (the other GPUs take the equivalent profiles). A benchmark, not a
timed test: the machine's load decides the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "components"))

from gpupools.catalog.prices import snapshot  # noqa: E402
from gpupools.config.demand import parse_demand  # noqa: E402
from gpupools.fit.answer import fit_demand  # noqa: E402

PROFILES = ("1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")
SLICES = 300
TARGET_SECONDS = 10.0


def demand(seed: int, size: str | None) -> dict:
    """300 replicas split at random over a random subset of the profiles."""
    chooser = random.Random(seed)
    chosen = chooser.sample(PROFILES, chooser.randint(2, len(PROFILES)))
    cuts = sorted(chooser.sample(range(1, SLICES), len(chosen) - 1))
    counts = [b - a for a, b in zip([0, *cuts], [*cuts, SLICES])]
    workloads = [{"name": f"w{i}", "slice": p, "count": c} for i, (p, c) in enumerate(zip(chosen, counts))]
    raw = {"cloud": "aws", "region": "us-east-1", "workloads": workloads}
    return {**raw, "size": size} if size else raw


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cases", type=int, default=8)
    args = parser.parse_args()
    book = snapshot()
    rows = []
    for size in ("p4d.24xlarge", None):
        for seed in range(args.cases):
            parsed = parse_demand(demand(seed, size))
            start = time.perf_counter()
            answer = fit_demand(parsed, book)
            seconds = time.perf_counter() - start
            chosen = answer.chosen
            rows.append(
                {
                    "sizes": size or "all",
                    "seed": seed,
                    "seconds": round(seconds, 3),
                    "chosen": chosen.request.size.name,
                    "gpus": chosen.gpus,
                    "lowerBound": chosen.lower_bound,
                    "greedyGpus": chosen.greedy_gpus,
                    "nodes": chosen.nodes,
                    "proven": chosen.proven,
                    "provenGpus": chosen.solution is None or chosen.solution.proven_gpus,
                    "stoppedByTimeLimit": chosen.stopped_by_time,
                }
            )
    worst = max(row["seconds"] for row in rows)
    if args.json:
        print(json.dumps({"slices": SLICES, "targetSeconds": TARGET_SECONDS, "worst": worst, "cases": rows}, indent=2))
        return 0
    header = f"{'sizes':14} {'seed':>4} {'s':>6} {'chosen':14} {'gpus':>4} {'bound':>5} {'greedy':>6} {'nodes':>5}"
    print(f"{header} proven gpus-proven")
    for row in rows:
        print(
            f"{row['sizes']:14} {row['seed']:>4} {row['seconds']:>6.2f} {row['chosen']:14} {row['gpus']:>4} "
            f"{row['lowerBound']:>5} {row['greedyGpus']:>6} {row['nodes']:>5} {row['proven']!s:6} {row['provenGpus']}"
        )
    print(f"worst {worst:.2f} s for {SLICES} slices (target < {TARGET_SECONDS:g} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
