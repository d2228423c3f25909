"""``gpupools verify``: after ``pulumi up``, proof that each pool's nodes advertise what the plan promised.

Exit status: 0 every pool matches; 1 a mismatch (one line each); 2 bad config (``ConfigError``, printed by
the CLI), an unreadable kubeconfig, an unreachable cluster or a response gpupools cannot read (one ``error:``
line, and with ``--json`` also ``{"stack", "ok": false, "error"}`` on stdout).

``--timeout`` bounds the whole run: the kubeconfig's exec plugin, every request and its retries, and the
waiting for MIG layouts. Without it, a run reads once, retries nothing, and still ends within
``DEFAULT_RUN_SECONDS``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Callable, Mapping

from ..resolve.stack_loader import load_stack
from ..config.loading import StackFile
from ..errors import ExitStatus
from ..untrusted.text import json_text, shown
from .cluster import ClusterError, ClusterReader, observe, resolve_kubeconfig
from .expected import device_plugin_target, expected_pools
from .report import RENDERERS, VerifyReport, compare
from .karpenter import promised_pools, with_promise_mismatches
from .resource_slices import expected_dra_devices, read_resource_slices, with_slice_mismatches

EXIT_OK = ExitStatus.OK
EXIT_MISMATCH = ExitStatus.MISMATCH  # distinct from a bug (1) and from bad input or an unreadable cluster (2)
EXIT_CLUSTER_ERROR = ExitStatus.BAD_INPUT
# Seconds between polls while a MIG layout is applied: the MIG manager takes minutes, the API a few ms.
DEFAULT_POLL_INTERVAL = 5.0
# Without --timeout: one read, no retries, and still a bound on the whole run (connect 5 s + read 20 s per request).
DEFAULT_RUN_SECONDS = 60.0


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``verify`` beyond the CLI's shared ``--stack``/``--config`` and ``--json``/``--format``."""
    parser.add_argument(
        "--kubeconfig", metavar="PATH", help="kubeconfig of the cluster (default: $KUBECONFIG, else ~/.kube/config)"
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="the whole run may take up to this long: retry an unreachable or failing cluster "
        "and wait while MIG layouts are applied or GPUs not yet advertised (default 0: read "
        f"once, no retries, at most {DEFAULT_RUN_SECONDS:.0f} s)",
    )


def run_verify(
    stack_file: StackFile,
    args: argparse.Namespace,
    *,
    poll_interval: float = DEFAULT_POLL_INTERVAL,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    environ: Mapping[str, str] = os.environ,
) -> int:
    """Validate the stack (a ``ConfigError`` propagates), read the cluster, print the report, return the exit status."""
    if poll_interval <= 0:
        raise ValueError("poll_interval must be positive, or the wait would spin")
    stack = load_stack(stack_file.config)
    pools, target, dra = expected_pools(stack), device_plugin_target(stack), expected_dra_devices(stack)
    promised = promised_pools(stack)
    output_format = getattr(args, "format", None) or "text"
    timeout = getattr(args, "timeout", 0.0) or 0.0
    started = clock()
    deadline = started + (timeout or DEFAULT_RUN_SECONDS)
    try:
        reader = ClusterReader.from_kubeconfig(
            resolve_kubeconfig(getattr(args, "kubeconfig", None), environ),
            deadline,
            retry=timeout > 0,
            clock=clock,
            sleep=sleep,
        )
        version = reader.version()

        def read() -> VerifyReport:
            report = compare(stack_file.stack, reader.server, version, pools, observe(reader, pools, target), target)
            report = with_promise_mismatches(report, promised, reader) if promised else report
            return with_slice_mismatches(report, dra, read_resource_slices(reader)) if dra else report

        report = poll(
            read,
            max(0.0, started + timeout - clock()),
            poll_interval,
            sleep,
            clock,
            on_wait=None if output_format == "json" else _print_waiting,
        )
    except ClusterError as error:
        print(f"error: {shown(str(error))}", file=sys.stderr)
        if output_format == "json":
            print(json_text({"stack": stack_file.stack, "ok": False, "error": shown(str(error))}))
        return int(EXIT_CLUSTER_ERROR)
    print(RENDERERS[output_format](report))
    return int(EXIT_OK if report.ok else EXIT_MISMATCH)


def poll(
    read: Callable[[], VerifyReport],
    timeout: float,
    interval: float,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
    on_wait: Callable[[VerifyReport, float], None] | None = None,
) -> VerifyReport:
    """Read until everything matches, nothing is still settling, or ``timeout`` seconds have passed.

    At most ``timeout / interval + 2`` reads: each wait sleeps a full interval or the time left.
    """
    deadline = clock() + timeout
    report: VerifyReport | None = None
    while True:
        try:
            report = read()
        except ClusterError:
            if report is None or clock() < deadline:
                raise
            return report  # the time ran out during a last look: the previous report stands
        remaining = deadline - clock()
        if report.ok or not report.in_progress or remaining <= 0:
            return report
        if on_wait is not None:
            on_wait(report, remaining)
        sleep(min(interval, remaining))


def _print_waiting(report: VerifyReport, remaining: float) -> None:
    settling = [mismatch for mismatch in report.mismatches if mismatch.in_progress]
    more = f" (+{len(settling) - 1} more)" if len(settling) > 1 else ""
    print(shown(f"waiting, {remaining:.0f}s left: {settling[0]}{more}"), file=sys.stderr)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not 0 <= value <= 24 * 3600:
        raise argparse.ArgumentTypeError(f"{text} is outside 0..86400 seconds")
    return value
