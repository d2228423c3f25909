"""The processes ``plan.py`` measures (``plan.py --child plan|floor``), and how it starts them.

Each runs in a fresh ``sys.executable``, so imports are cold and the peak RSS is its own; it writes its times, peak
RSS and what it loaded to a JSON file for the parent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
PLAN_SCRIPT = BENCHMARKS / "plan.py"
COMPONENTS = BENCHMARKS.parent / "components"


def _peak_rss_kib() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def _lazy_module_types() -> tuple[type, ...]:
    """The classes of modules registered but not yet executed: the stdlib's and Pulumi's own copy of it.

    The SDKs' ``_utilities.lazy_import`` uses ``pulumi._utils.lazy_import`` (a private ``_LazyModule``);
    the stdlib's ``importlib.util.LazyLoader`` is its fallback.
    """
    import importlib.util

    types = [importlib.util._LazyModule]  # type: ignore[attr-defined]
    utils = sys.modules.get("pulumi._utils")
    if utils is not None and hasattr(utils, "_LazyModule"):
        types.append(utils._LazyModule)
    return tuple(types)


def _loaded_modules(prefix: str) -> list[str]:
    """Modules under ``prefix`` that were executed, not just registered lazily by ``_utilities.lazy_import``.

    ``type()`` (unlike ``isinstance``) does not touch the module's attributes, so it does not load a lazy one.
    """
    lazy = _lazy_module_types()
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith(prefix) and module is not None and type(module) not in lazy
    )


def _profiled(func):
    """Run ``func`` under cProfile in this thread and in every thread it starts (the mock run uses threads)."""
    import cProfile
    import threading

    profiles: list[cProfile.Profile] = []
    original_run = threading.Thread.run

    def run(self: threading.Thread) -> None:
        profile = cProfile.Profile()
        profiles.append(profile)
        profile.enable()
        try:
            original_run(self)
        finally:
            profile.disable()

    threading.Thread.run = run  # type: ignore[method-assign]
    main = cProfile.Profile()
    profiles.append(main)
    main.enable()
    try:
        result = func()
    finally:
        main.disable()
        threading.Thread.run = original_run  # type: ignore[method-assign]
    return result, profiles


def child_plan(stack_path: str, out: str, profile_out: str | None) -> None:
    start, cpu_start = time.perf_counter(), time.process_time()

    def plan():
        sys.path.insert(0, str(COMPONENTS))
        from gpupools.config import read_stack_file
        from gpupools.plan.offline import plan_stack

        return plan_stack(read_stack_file(Path(stack_path)))

    if profile_out:
        result, profiles = _profiled(plan)
        import pstats

        stats = pstats.Stats(profiles[0])
        for profile in profiles[1:]:
            stats.add(profile)
        stats.dump_stats(profile_out)
    else:
        result = plan()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    rss = _peak_rss_kib()
    from gpupools.plan.offline import program_location

    _, program = program_location(Path(stack_path))
    Path(out).write_text(
        json.dumps(
            {
                "wall_ms": wall * 1000,
                "cpu_ms": cpu * 1000,
                "peak_rss_kib": rss,
                "resources": len(result.resources),
                "program": _program_name(program),
                "sdk_modules": _loaded_modules("pulumi_"),
            }
        )
    )


def _program_name(program: Any) -> str:
    """A program folder's path, or a packaged program's dotted name."""
    return str(program.resolve()) if isinstance(program, Path) else f"{program.__module__}.{program.__name__}"


def child_floor(modules_file: str, out: str) -> None:
    modules = json.loads(Path(modules_file).read_text())
    start, cpu_start = time.perf_counter(), time.process_time()
    import importlib

    import pulumi  # noqa: F401
    import pydantic  # noqa: F401

    sys.path.insert(0, str(COMPONENTS))
    import gpupools  # noqa: F401

    lazy = _lazy_module_types()
    for name in modules:  # sorted: parents before children
        module = importlib.import_module(name)
        if type(module) in lazy:
            # Any attribute but the introspection ones (__dict__, __name__, ...) executes a lazy module.
            getattr(module, "__gpupools_bench_load__", None)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    rss = _peak_rss_kib()
    missing = [name for name in modules if type(sys.modules.get(name)) in lazy]
    Path(out).write_text(
        json.dumps({"wall_ms": wall * 1000, "cpu_ms": cpu * 1000, "peak_rss_kib": rss, "not_loaded": missing})
    )


def child_environment() -> dict[str, str]:
    """This environment, but writing bytecode caches: an installed package has its modules compiled, and a shell
    with ``PYTHONDONTWRITEBYTECODE`` would have every plan compile each changed module again (the floor fewer)."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def run_child(args: list[str], work: Path) -> dict[str, Any]:
    """``plan.py --child <args>`` in a fresh process: the JSON result it wrote."""
    return run_wrapped_child(args, work)[0]


def run_wrapped_child(
    args: list[str], work: Path, wrapper: list[str] | None = None, extra_env: dict[str, str] | None = None
) -> tuple[dict[str, Any], str]:
    """``plan.py --child <args>`` in a fresh process, started by ``wrapper`` when given (valgrind): the JSON result it
    wrote, and its standard error."""
    out = Path(tempfile.mkstemp(dir=work, suffix=".json")[1])
    command = [*(wrapper or []), sys.executable, str(PLAN_SCRIPT), "--child", *args, "--out", str(out)]
    proc = subprocess.run(
        command, capture_output=True, text=True, cwd=work, env={**child_environment(), **(extra_env or {})}
    )
    if proc.returncode != 0 or not out.stat().st_size:
        raise SystemExit(f"benchmark subprocess failed ({' '.join(command[:1] + args)}):\n{proc.stderr[-4000:]}")
    return json.loads(out.read_text()), proc.stderr


def write_floor_modules(work: Path, stack: str, plan_runs: list[dict[str, Any]]) -> list[str]:
    """Every SDK module the stack's plans executed, written to ``modules-<stack>.json`` for its floor child."""
    modules = sorted({module for run in plan_runs for module in run["sdk_modules"]})
    floor_modules_file(work, stack).write_text(json.dumps(modules))
    return modules


def floor_modules_file(work: Path, stack: str) -> Path:
    return work / f"modules-{stack}.json"
