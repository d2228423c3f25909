"""Benchmark ``gpupools plan``: wall time and peak memory of the offline plan against the SDK import floor.

For the AKS and the EKS stack and for 1, 10 and 50 GPU pools, this prints the plan's median wall time and
peak RSS beside the time it takes just to import the SDK modules that plan needed, and checks the targets:

- the plan takes at most 1.2x its import floor (checked at the smallest pool count measured);
- each added pool costs at most 0.5% of the floor (slope from the smallest to the largest pool count,
  (t50 - t1) / 49), so that 50 pools take at most about 1.25x the floor.

Every measurement runs in a fresh ``sys.executable`` subprocess, so imports are cold and the peak RSS
(``ru_maxrss``) belongs to that measurement alone. Each is repeated ``--repeat`` times in rounds (each round runs
every plan, then each cloud's floor, after one unmeasured warm-up per cloud that warms the OS file cache and the
bytecode caches); the table shows median wall times. The stacks are ``plan_stacks.py``'s, the measured processes
``plan_children.py``'s. The targets are judged on what was measured back to back: the median over rounds of each
round's plan/floor ratio, and of each round's slope as a share of that round's floor.

Wall times are taken inside the subprocess with ``time.perf_counter``, from before the first import to the
end of the work, so interpreter start-up is in neither the plan nor the floor:

- plan: ``read_stack_file`` + ``plan.offline.plan_stack`` (validation, the packaged program
  ``gpupools.platform.program.main`` under mocks, the resource dump), on a ``Pulumi.<stack>.yaml`` generated in
  a temporary folder with no ``Pulumi.yaml``, so the program is the packaged one, as for an installed wheel
  (checked);
- floor: ``import pulumi, pydantic, gpupools``, then every ``pulumi_*`` module the plan actually executed
  (reported by the plan subprocess; modules Pulumi registered lazily but never loaded are left out, as
  they are left unloaded by ``import <package>`` in the floor too).

Usage: ``python benchmarks/plan.py [--repeat 5] [--pools 1,10,50] [--json] [--strict] [--profile]``.
Exit status is 0 whatever the results, unless ``--strict`` is given and a target is missed (then 1). A quick
check (fewer than 3 runs, no warm-up, or a pool span under 9) reports its numbers and judges nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling modules, also when loaded by path (tests)
from plan_children import child_floor, child_plan, floor_modules_file, run_child, write_floor_modules  # noqa: E402
from plan_stacks import STACKS, write_stack  # noqa: E402

# A stack file without a Pulumi project beside it is planned with the program inside the installed library.
PACKAGED_PROGRAM = "gpupools.platform.program.main"
MAX_RATIO = 1.2
# Each added pool, as a share of the import floor: a slope in ms would judge a fast and a slow machine alike.
MAX_SLOPE_SHARE = 0.005
# A verdict needs a measurement that can carry one: single cold runs of one plan differ by tens of ms, as
# much as the per-pool cost being judged. So targets are judged only on the median of at least this many
# warmed-up runs, and the slope only over a span of at least this many pools; a quick check reports the
# numbers and says it judged nothing.
MIN_REPEAT_FOR_VERDICT = 3
MIN_POOL_SPAN_FOR_SLOPE = 9


def unjudged(repeat: int, warmup: bool, pool_counts: list[int]) -> dict[str, str | None]:
    """Why the ratio and the slope cannot be judged from this measurement (None: they can)."""
    runs = None
    if repeat < MIN_REPEAT_FOR_VERDICT or not warmup:
        runs = (
            f"{repeat} {'warmed-up' if warmup else 'unwarmed'} run(s) per point; a verdict needs the median of "
            f"at least {MIN_REPEAT_FOR_VERDICT} warmed-up runs"
        )
    span = pool_counts[-1] - pool_counts[0]
    slope = runs or (
        f"a slope over {span} pool(s) is noise; a verdict needs a span of at least {MIN_POOL_SPAN_FOR_SLOPE}"
        if len(pool_counts) > 1 and span < MIN_POOL_SPAN_FOR_SLOPE
        else None
    )
    return {"ratio": runs, "slope": slope}


DEFAULT_POOLS = (1, 10, 50)
MAX_POOLS = 50  # gpupools:gpuPools allows at most 50 pools

# --- orchestration ---------------------------------------------------------------------------------------


def paired_ratio(plans: list[dict[str, Any]], floors: list[dict[str, Any]], key: str) -> float:
    """The median over rounds of each round's plan / floor: the two ran back to back, on the machine as it was then.

    On a machine shared with other work, single runs of the same plan differ by a fifth or more from round to round,
    in wall and in CPU time alike; a ratio of two medians taken from different rounds carries that drift."""
    return statistics.median(plan[key] / floor[key] for plan, floor in zip(plans, floors, strict=True))


def paired_slope(
    base: list[dict[str, Any]], top: list[dict[str, Any]], floors: list[dict[str, Any]], span: int, key: str
) -> dict[str, Any] | None:
    """The cost of each added pool: the median over rounds of ``(t_top - t_base) / span``, in ms and as a share of
    that round's floor (None for a single pool count). Each difference is of two plans of the same round."""
    if span <= 0:
        return None
    slopes = [(t[key] - b[key]) / span for b, t in zip(base, top, strict=True)]
    shares = [slope / floor[key] for slope, floor in zip(slopes, floors, strict=True)]
    return {"ms": statistics.median(slopes), "share": statistics.median(shares), "share_runs": shares}


def measure(pool_counts: list[int], repeat: int, work: Path, log, warmup: bool = True) -> dict[str, Any]:
    stacks = {(stack, n): write_stack(work, stack, n) for stack in STACKS for n in pool_counts}
    plans: dict[tuple[str, int], list[dict[str, Any]]] = {key: [] for key in stacks}
    for stack in STACKS if warmup else ():  # warm-up: OS file cache and bytecode caches, not measured
        log(f"warm-up {stack}")
        run_child(["plan", str(stacks[(stack, pool_counts[0])])], work)
    floors: dict[str, list[dict[str, Any]]] = {stack: [] for stack in STACKS}
    modules: dict[str, list[str]] = {}
    # Interleaved, plans and floors in each round, so drift (a machine shared with other work) hits both alike.
    for round_ in range(repeat):
        for (stack, n), path in stacks.items():
            log(f"plan {stack} pools={n} run {round_ + 1}/{repeat}")
            result = run_child(["plan", str(path)], work)
            if result["program"] != PACKAGED_PROGRAM:
                raise SystemExit(f"plan ran {result['program']}, not the packaged {PACKAGED_PROGRAM}")
            plans[(stack, n)].append(result)
        for stack in STACKS:  # the SDK modules every plan of the stack executed so far (the same in each round)
            runs = [run for (name, _), stack_runs in plans.items() if name == stack for run in stack_runs]
            modules[stack] = write_floor_modules(work, stack, runs)
            log(f"floor {stack} run {round_ + 1}/{repeat}")
            floors[stack].append(run_child(["floor", str(floor_modules_file(work, stack))], work))

    not_judged = unjudged(repeat, warmup, pool_counts)
    results: dict[str, Any] = {
        "repeat": repeat,
        "pools": pool_counts,
        "warmup": warmup,
        "targets": {"max_ratio": MAX_RATIO, "max_slope_share_of_floor": MAX_SLOPE_SHARE},
        "not_judged": not_judged,
        "python": sys.version.split()[0],
        "stacks": {},
    }
    for stack in STACKS:
        floor_runs = floors[stack]
        floor_ms = statistics.median(r["wall_ms"] for r in floor_runs)
        rows = []
        for n in pool_counts:
            runs = plans[(stack, n)]
            rows.append(
                {
                    "pools": n,
                    "resources": runs[0]["resources"],
                    "plan_ms": statistics.median(r["wall_ms"] for r in runs),
                    "plan_ms_runs": [r["wall_ms"] for r in runs],
                    "plan_cpu_ms": statistics.median(r["cpu_ms"] for r in runs),
                    "peak_rss_mib": max(r["peak_rss_kib"] for r in runs) / 1024,
                    "ratio": paired_ratio(runs, floor_runs, "wall_ms"),
                }
            )
        base, top = pool_counts[0], pool_counts[-1]
        slope = paired_slope(plans[(stack, base)], plans[(stack, top)], floor_runs, top - base, "wall_ms")
        cpu_slope = paired_slope(plans[(stack, base)], plans[(stack, top)], floor_runs, top - base, "cpu_ms")
        ratio_ok = None if not_judged["ratio"] else rows[0]["ratio"] <= MAX_RATIO
        slope_ok = None if not_judged["slope"] else (slope is None or slope["share"] <= MAX_SLOPE_SHARE)
        results["stacks"][stack] = {
            "cloud": "azure" if stack == "aks" else "aws",
            "floor_ms": floor_ms,
            "floor_ms_runs": [r["wall_ms"] for r in floor_runs],
            # CPU time (all threads) beside wall time: on a busy machine it moves less. Targets judge wall time.
            "floor_cpu_ms": statistics.median(r["cpu_ms"] for r in floor_runs),
            "cpu_ratio": paired_ratio(plans[(stack, base)], floor_runs, "cpu_ms"),
            "cpu_slope_share_of_floor": cpu_slope["share"] if cpu_slope else None,
            "floor_peak_rss_mib": max(r["peak_rss_kib"] for r in floor_runs) / 1024,
            "floor_modules": len(modules[stack]),
            "floor_packages": sorted({m.split(".")[0] for m in modules[stack]}),
            "rows": rows,
            "slope_ms_per_pool": slope["ms"] if slope else None,
            "slope_share_of_floor": slope["share"] if slope else None,
            "slope_share_runs": slope["share_runs"] if slope else None,
            "ratio_ok": ratio_ok,
            "slope_ok": slope_ok,
            "pass": None if ratio_ok is None or slope_ok is None else ratio_ok and slope_ok,
        }
    verdicts = [s["pass"] for s in results["stacks"].values()]
    results["pass"] = None if None in verdicts else all(verdicts)
    return results


def render(results: dict[str, Any]) -> str:
    head = ("stack", "pools", "resources", "plan ms", "peak MiB", "floor ms", "plan/floor", "ms/pool", "target")
    lines = []
    for stack, data in results["stacks"].items():
        rows = data["rows"]
        for i, row in enumerate(rows):
            target = ""
            if i == 0:
                target = f"ratio {_verdict(data['ratio_ok'])}"
            if i == len(rows) - 1 and data["slope_ms_per_pool"] is not None:
                target = (target + ", " if target else "") + f"slope {_verdict(data['slope_ok'])}"
            slope = data["slope_ms_per_pool"]
            lines.append(
                (
                    stack,
                    str(row["pools"]),
                    str(row["resources"]),
                    f"{row['plan_ms']:.0f}",
                    f"{row['peak_rss_mib']:.0f}",
                    f"{data['floor_ms']:.0f}",
                    f"{row['ratio']:.2f}",
                    f"{slope:.1f}" if slope is not None and i == len(rows) - 1 else "",
                    target,
                )
            )
    widths = [max(len(r[c]) for r in [head, *lines]) for c in range(len(head))]

    def fmt(row: tuple[str, ...]) -> str:  # text columns (stack, target) left-aligned, numbers right-aligned
        return "  ".join(v.ljust(w) if c in (0, 8) else v.rjust(w) for c, (v, w) in enumerate(zip(row, widths)))

    out = [fmt(head), fmt(tuple("-" * w for w in widths)), *map(fmt, lines), ""]
    pools = results["pools"]
    for stack, data in results["stacks"].items():
        slope = data["slope_ms_per_pool"]
        slope_text = (
            f"slope {slope:.1f} ms/pool = {100 * data['slope_share_of_floor']:.2f}% of the floor "
            f"(median over rounds of (t{pools[-1]} - t{pools[0]}) / {pools[-1] - pools[0]} / floor, "
            f"target <= {100 * MAX_SLOPE_SHARE:.1f}%; rounds {_spread(data['slope_share_runs'])})"
            if slope is not None
            else "slope n/a (one pool count)"
        )
        out.append(
            f"{stack}: {_verdict(data['pass'])}  "
            f"ratio {data['rows'][0]['ratio']:.2f} at {pools[0]} pool(s) "
            f"(target <= {MAX_RATIO}), {slope_text}; floor = {data['floor_modules']} modules of "
            f"{', '.join(data['floor_packages'])} + pulumi, pydantic, gpupools ({data['floor_peak_rss_mib']:.0f} MiB)"
        )
    cpu = [
        f"{stack} {data['cpu_ratio']:.2f}"
        + (f", {100 * data['cpu_slope_share_of_floor']:.2f}%/pool" if data["cpu_slope_share_of_floor"] else "")
        for stack, data in results["stacks"].items()
    ]
    out.append(f"CPU time (all threads), not judged, steadier on a busy machine: plan/floor {'; '.join(cpu)}")
    out.append(f"median of {results['repeat']} fresh subprocesses each; Python {results['python']}")
    for target, why in results["not_judged"].items():
        if why:
            out.append(f"{target} not judged: {why}")
    return "\n".join(out)


def _spread(shares: list[float]) -> str:
    """The per-round shares, lowest to highest, in percent."""
    return " ".join(f"{100 * share:.2f}%" for share in sorted(shares))


def _verdict(ok: bool | None) -> str:
    return "not judged" if ok is None else "PASS" if ok else "FAIL"


def profile(pools: int, work: Path, top: int = 25) -> str:
    """One cProfile'd plan per cloud at ``pools`` pools: where the time goes, cumulative and own time."""
    import io
    import pstats

    text = io.StringIO()
    for stack in STACKS:
        path = write_stack(work, stack, pools)
        stats_file = work / f"{stack}-{pools}.prof"
        result = run_child(["plan", str(path), "--profile-out", str(stats_file)], work)
        text.write(f"\n=== {stack}, {pools} pools: {result['wall_ms']:.0f} ms under cProfile ===\n")
        stats = pstats.Stats(str(stats_file), stream=text).strip_dirs()
        stats.sort_stats("cumulative").print_stats(top)
        stats.sort_stats("tottime").print_stats(top)
    return text.getvalue()


def parse_pools(text: str) -> list[int]:
    try:
        counts = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of pool counts: {text!r}") from None
    if not counts or counts[0] < 1 or counts[-1] > MAX_POOLS:
        raise argparse.ArgumentTypeError(f"pool counts must be between 1 and {MAX_POOLS}")
    return counts


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child = argparse.ArgumentParser()
        child.add_argument("kind", choices=["plan", "floor"])
        child.add_argument("input")
        child.add_argument("--out", required=True)
        child.add_argument("--profile-out")
        args = child.parse_args(argv[1:])
        if args.kind == "plan":
            child_plan(args.input, args.out, args.profile_out)
        else:
            child_floor(args.input, args.out)
        return 0

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds: fresh subprocesses per measurement (default 5)")
    parser.add_argument(
        "--pools",
        type=parse_pools,
        default=list(DEFAULT_POOLS),
        help="comma-separated pool counts to measure (default 1,10,50)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile one plan per cloud at the largest pool count and print the top functions",
    )
    parser.add_argument("--no-warmup", action="store_true", help="skip the unmeasured warm-up plan per cloud")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.strict and any(unjudged(args.repeat, not args.no_warmup, args.pools).values()):
        parser.error(
            "--strict needs a measurement that is judged: "
            + "; ".join(why for why in unjudged(args.repeat, not args.no_warmup, args.pools).values() if why)
        )

    log = (lambda message: None) if args.quiet else (lambda message: print(message, file=sys.stderr, flush=True))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpupools-bench-") as tmp:
        work = Path(tmp)
        results = measure(args.pools, args.repeat, work, log, warmup=not args.no_warmup)
        results["total_s"] = time.perf_counter() - started
        profile_text = profile(args.pools[-1], work) if args.profile else ""
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(render(results))
        print(f"total benchmark time {results['total_s']:.1f} s")
    if profile_text:
        print(profile_text, file=sys.stderr if args.json else sys.stdout)
    return 1 if args.strict and not results["pass"] else 0


if __name__ == "__main__":
    sys.exit(main())
