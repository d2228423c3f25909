"""Deep or large input that passed its bounds, run with room to spare: no ``RecursionError`` as a bug.

Every document gpupools reads is bounded before it is used (``limits``: depth, nodes, bytes; each model's own
counts), but the work some inputs ask for still grows with them: ``fit``'s exact search recurses once per
replica it places, and a demand at its documented bounds (200 workloads of 10,000 replicas) goes far deeper than
Python's default 1,000 frames. ``with_headroom`` runs such work on a thread of its own with a large stack and a
recursion limit to match; if the work still runs out of frames or memory, the caller gets one ``InputTooLarge``
naming the input, which the command reports as the user's input (exit 2), never as ``internal error``.
"""

from __future__ import annotations

import sys
import threading
from typing import Callable, TypeVar

from ..errors import GpupoolsError

STACK_BYTES = 512 << 20  # reserved, not used: the pages a thread never touches cost nothing
RECURSION_LIMIT = 100_000  # frames of ~1-2 KiB of C stack each at most, well inside STACK_BYTES

T = TypeVar("T")


class InputTooLarge(GpupoolsError, ValueError):
    """The input is within its bounds, but what it asks for needs more frames or memory than gpupools has."""


def too_large(what: str, error: BaseException) -> InputTooLarge:
    """The one line for an input whose work ran out of room: which input, and what to do."""
    room = "memory" if isinstance(error, MemoryError) else "nesting (recursion)"
    return InputTooLarge(
        f"{what}: too large to process; the work it asks for ran out of {room}. Make it smaller (fewer items, "
        "smaller counts); the bounds are in docs/hostile-input.md"
    )


def with_headroom(work: Callable[[], T], what: str) -> T:
    """``work()``, run on a thread with ``STACK_BYTES`` of stack and ``RECURSION_LIMIT`` frames; its exceptions
    are raised here, a ``RecursionError`` or ``MemoryError`` as ``InputTooLarge`` naming ``what``."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # noqa: BLE001 handed to the caller's thread as it is
            outcome["error"] = error

    previous_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous_limit, RECURSION_LIMIT))
    try:
        previous_stack = threading.stack_size(STACK_BYTES)
        try:
            worker = threading.Thread(target=run, name="gpupools-headroom", daemon=True)
            worker.start()
        finally:
            threading.stack_size(previous_stack)
        worker.join()
    finally:
        sys.setrecursionlimit(previous_limit)
    error = outcome.get("error")
    if isinstance(error, (RecursionError, MemoryError)):
        raise too_large(what, error) from None
    if isinstance(error, BaseException):
        raise error
    return outcome["value"]  # type: ignore[return-value]
