"""Run issue 25's hostile catalogue as a user meets it: every case as ``python -m gpupools`` in a subprocess of its
own, with its exit status, wall time and peak RSS (``wait4``), against the bounds of the issue's "Done when":
exit 0 or 2 (141 for a closed pipe) with one clear line, under 15 s and 500 MB, no user file changed, no raw
control character. The cases are ``tests/support/hostile_cases.py``, with ``hostile_io_cases.py`` (the suite's
``tests/cli/test_hostile_catalogue.py`` checks the same endings in-process, without times).

Usage: ``python benchmarks/hostile.py [--group refresh] [--name TEXT] [--json] [--fast]`` (``--fast`` leaves out
the cases bounded by a timeout of many seconds). Exit status 1 when a case misses a bound, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "components"))

from support import hostile_catalogue  # noqa: E402
from support.hostile_cases import all_cases  # noqa: E402
from support.hostile_runner import run_in_subprocess  # noqa: E402

MAX_SECONDS = 15.0
MAX_RSS_MIB = 500.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--group",
        help="only this group (refresh, refresh-path, cache, program, base, gaps, io-refresh, io-path, io-demand)",
    )
    parser.add_argument("--name", default="", help="only cases whose name holds this text")
    parser.add_argument("--json", action="store_true", help="machine-readable results")
    parser.add_argument("--fast", action="store_true", help="leave out the cases bounded by long timeouts")
    parser.add_argument(
        "--components",
        type=Path,
        default=REPO / "components",
        help="the gpupools package to run (default: this checkout's), e.g. another worktree's, to compare",
    )
    args = parser.parse_args(argv)
    cases = [
        case
        for case in all_cases()
        if (args.group is None or case.group == args.group) and args.name in case.name and not (args.fast and case.slow)
    ]
    rows = []
    with tempfile.TemporaryDirectory(prefix="gpupools-hostile-") as folder:
        base = Path(folder)
        cert = hostile_catalogue.certificate(base)
        for index, case in enumerate(cases):
            try:
                outcome = run_in_subprocess(case, base / f"case{index}", cert, args.components.resolve())
            except LookupError as missing:
                rows.append({"group": case.group, "case": case.name, "skipped": str(missing)})
                continue
            problems = hostile_catalogue.problems_of(case, outcome)
            problems += [f"{outcome.seconds:.1f} s"] if outcome.seconds >= MAX_SECONDS else []
            problems += [f"{outcome.rss_mib:.0f} MiB"] if outcome.rss_mib >= MAX_RSS_MIB else []
            first = outcome.err.decode("utf-8", "replace").strip().splitlines()[:1]
            rows.append(
                {
                    "group": case.group,
                    "case": case.name,
                    "exit": outcome.code,
                    "seconds": round(outcome.seconds, 2),
                    "peak_rss_mib": round(outcome.rss_mib, 1),
                    "clean": not problems,
                    "problems": problems,
                    "first_line": (first[0] if first else "")[:160],
                }
            )
            if not args.json:
                mark = "ok " if not problems else "BAD"
                print(
                    f"{mark} {case.group:12} {case.name:38} exit {outcome.code:3} {outcome.seconds:6.1f} s "
                    f"{outcome.rss_mib:6.0f} MiB {'; '.join(problems)}",
                    flush=True,
                )
    measured = [row for row in rows if "skipped" not in row]
    summary = {
        "cases": len(rows),
        "clean": sum(row["clean"] for row in measured),
        "skipped": len(rows) - len(measured),
        "max_seconds": max((row["seconds"] for row in measured), default=0),
        "max_peak_rss_mib": max((row["peak_rss_mib"] for row in measured), default=0),
    }
    if args.json:
        print(json.dumps({"summary": summary, "rows": rows}, indent=1))
    else:
        print(
            f"\n{summary['clean']}/{len(measured)} cases clean ({summary['skipped']} skipped); "
            f"max {summary['max_seconds']} s, max peak RSS {summary['max_peak_rss_mib']} MiB"
        )
    return 0 if summary["clean"] == len(measured) else 1


if __name__ == "__main__":
    sys.exit(main())
