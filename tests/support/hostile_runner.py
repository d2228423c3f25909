"""Running a hostile case: in a subprocess of its own (``python -m gpupools``: exit status, time and peak RSS as a
user meets them) or in this process through ``gpupools.cli.main`` (the same code paths, cheap enough for the suite).

Either way the case gets its own folder with ``home``, ``cache`` (``XDG_CACHE_HOME``) and ``project`` (the working
folder), no price cache from the environment, and ``HTTPS_PROXY`` set to the case's hostile proxy or to a port
that refuses, so no case ever reaches the real network.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from contextlib import ExitStack, redirect_stderr, redirect_stdout
from pathlib import Path

from support.hostile_catalogue import ROOT, Case, HostileProxy, Outcome, certificate, changed, snapshot

CASE_TIMEOUT = 60
PROVIDER = "@provider"  # argv of a provider case: its name, run by support.hostile_provider
CLEARED = ("GPUPOOLS_PRICE_CACHE", "GPUPOOLS_OFFERS_CACHE", "HTTP_PROXY", "http_proxy", "https_proxy", "NO_PROXY")
CLEARED += ("no_proxy", "ALL_PROXY", "all_proxy", "GPUPOOLS_DEBUG", "SSL_CERT_DIR")


def _setting_up(case: Case, where: Path, cert: tuple[Path, Path] | None, stack: ExitStack) -> dict[str, str]:
    """The case's folders and files, its proxy started; the environment variables it runs with."""
    for folder in ("home", "cache", "project"):
        (where / folder).mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(where / "home"), "XDG_CACHE_HOME": str(where / "cache"), "HTTPS_PROXY": "http://127.0.0.1:9"}
    if case.proxy is not None:
        if cert is None:
            raise LookupError("no certificate for the hostile proxy (openssl missing)")
        proxy = stack.enter_context(HostileProxy(case.proxy(cert)))
        env |= {"HTTPS_PROXY": proxy.url, "SSL_CERT_FILE": str(cert[0])}
    env |= case.prepare(where) or {}
    if case.kube is not None:
        from support.fake_kube_api import FakeKubeApi

        api = FakeKubeApi()
        api.version = {"major": "1", "minor": "34", "gitVersion": "v1.34.2", "platform": "linux/amd64"}
        case.kube(api)
        stack.callback(api.stop)
        api.start().write_kubeconfig(where / "kubeconfig")
    return env


def argv_of(case: Case, where: Path) -> list[str]:
    return [arg.replace("{dir}", str(where)) for arg in case.argv]


# Runs ``python -m <module> <args>`` and, at exit, writes the process's own peak RSS (``VmHWM``, KiB) to a file:
# wait4's ru_maxrss also counts the parent's memory before exec (a benchmark holding a 25 MB slice list for its
# fake API server would be counted in every later case). When it cannot be written (killed), wait4's figure is used.
PEAK_WRAPPER = """
import atexit, os, runpy, sys
def _peak():
    try:
        with open("/proc/self/status") as status:
            peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
        with open(os.environ["HOSTILE_PEAK_FILE"], "w") as out:
            out.write(peak)
    except (OSError, StopIteration):
        pass
atexit.register(_peak)
sys.path.insert(0, os.environ["HOSTILE_TESTS"])
module = sys.argv[1]
sys.argv = [module, *sys.argv[2:]]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def run_in_subprocess(
    case: Case, where: Path, cert: tuple[Path, Path] | None, components: Path = ROOT / "components"
) -> Outcome:
    """``python -m gpupools`` for ``case`` (the package from ``components``), with its wall time and its own peak
    RSS (``wait4``)."""
    with ExitStack() as stack:
        env = _setting_up(case, where, cert, stack)
        before = snapshot(where)
        base = {key: value for key, value in os.environ.items() if key not in CLEARED}
        base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(components), os.environ.get("PYTHONPATH")]))
        out_path, err_path = where / ".." / f"{where.name}.out", where / ".." / f"{where.name}.err"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.monotonic()
            module, args = (
                ("support.hostile_provider", case.argv[1:])
                if case.argv[0] == PROVIDER
                else ("gpupools", argv_of(case, where))
            )
            peak_file = where.parent / f"{where.name}.peak"
            proc = subprocess.Popen(
                [sys.executable, "-c", PEAK_WRAPPER, module, *args],
                cwd=where / "project",
                env={**base, **env, "HOSTILE_PEAK_FILE": str(peak_file), "HOSTILE_TESTS": str(ROOT / "tests")},
                stdout=subprocess.PIPE if case.pipe else out,
                stderr=err,
                stdin=subprocess.DEVNULL,
            )
            killer = threading.Timer(CASE_TIMEOUT, proc.kill)
            killer.start()
            first = b""
            if case.pipe:
                assert proc.stdout is not None
                first = proc.stdout.readline()
                proc.stdout.close()  # as `| head -1` does
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            seconds = time.monotonic() - start
            killer.cancel()
        code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        peak = int(peak_file.read_text()) if peak_file.exists() else usage.ru_maxrss
        outcome = Outcome(code, first or out_path.read_bytes(), err_path.read_bytes(), seconds, peak / 1024)
        outcome.changed = changed(before, snapshot(where), case.may_change)
        return outcome


def run_in_process(case: Case, where: Path, cert: tuple[Path, Path] | None) -> Outcome:
    """``gpupools.cli.main`` for ``case`` in this process, its environment and working folder set and restored."""
    from gpupools.cli import main
    from support import hostile_provider

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    with ExitStack() as stack:
        env = _setting_up(case, where, cert, stack)
        before = snapshot(where)
        out, err = io.StringIO(), io.StringIO()
        try:
            for key in CLEARED:
                os.environ.pop(key, None)
            os.environ.update(env)
            os.chdir(where / "project")
            start = time.monotonic()
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = (
                        hostile_provider.main(case.argv[1:]) if case.argv[0] == PROVIDER else main(argv_of(case, where))
                    )
                except SystemExit as exit_:  # argparse's own refusals
                    code = exit_.code if isinstance(exit_.code, int) else 2
            seconds = time.monotonic() - start
        finally:
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
        outcome = Outcome(code, _bytes(out.getvalue()), _bytes(err.getvalue()), seconds)
        outcome.changed = changed(before, snapshot(where), case.may_change)
        return outcome


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "backslashreplace")


# By case name: its outcome and folder, or the ``LookupError`` that stopped it.
Results = dict[str, tuple[Outcome, Path] | LookupError]


def run_each(cases: list[Case], base: Path) -> Results:
    """Each case in this process in its own folder under ``base``: by name, its outcome and folder, or the
    ``LookupError`` that stopped it (no openssl for the price hosts' certificate)."""
    cert = certificate(base)
    results: Results = {}
    for index, case in enumerate(cases):
        where = base / f"case{index}"
        try:
            results[case.name] = (run_in_process(case, where, cert), where)
        except LookupError as missing:
            results[case.name] = missing
    return results
