"""The cyclic garbage collector rests while an offline run is in progress, and is as it was once none is.

A run makes tens of thousands of short-lived tasks and outputs; each full collection they set off walks every object
the SDKs created on import (a cold 50-pool EKS plan spent half a second in four of them).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pulumi
import pytest

from gpupools.testing import run_program


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    gc.enable() if was else gc.disable()


def _exporting_collector_state() -> None:
    pulumi.export("collecting", gc.isenabled())


def test_off_during_a_run_and_on_after(collector_on: None) -> None:
    run = run_program(_exporting_collector_state, project="p", stack="s", config={})

    assert run.outputs["collecting"] is False
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        run_program(_exporting_collector_state, project="p", stack="s", config={})
        assert not gc.isenabled()
    finally:
        gc.enable() if was else gc.disable()


def test_on_again_only_when_the_last_of_two_overlapping_runs_ends(collector_on: None) -> None:
    started, release = threading.Event(), threading.Event()

    def waiting() -> None:
        started.set()
        assert release.wait(60)

    first = threading.Thread(target=run_program, args=(waiting,), kwargs={"project": "p", "stack": "a", "config": {}})
    first.start()
    assert started.wait(60)
    run_program(lambda: None, project="p", stack="b", config={})  # starts and ends inside the first run
    still_off = not gc.isenabled()
    release.set()
    first.join(60)

    assert still_off and gc.isenabled()


def test_on_again_after_a_run_that_fails(collector_on: None) -> None:
    def failing() -> None:
        raise RuntimeError("the program's own error")

    with pytest.raises(RuntimeError, match="the program's own error"):
        run_program(failing, project="p", stack="s", config={})
    assert gc.isenabled()


def test_what_a_run_leaves_alive_waits_in_the_oldest_generation(collector_on: None) -> None:
    """Left young, everything a run allocated would be walked by the next young and middle collections."""
    kept: list[list[str]] = []

    def program() -> None:
        kept.append(["made during the run"])  # a list: an object the collector tracks

    run_program(program, project="p", stack="s", config={})

    assert any(obj is kept[0] for obj in gc.get_objects(generation=2))
    assert not any(obj is kept[0] for obj in gc.get_objects(generation=0) + gc.get_objects(generation=1))
