"""An offline run registers resources without the SDK's stack trace, and leaves the SDK as it was everywhere else.

The mocks read no source position, and reading the Python stack (source lines included) of each registration was a
tenth of a plan's time per pool.
"""

from __future__ import annotations


import pulumi
import pytest
from pulumi.runtime import resource as runtime_resource

from gpupools.testing import run_program
from support.monitor_requests import recorded_requests


class _Thing(pulumi.CustomResource):
    def __init__(self, name: str) -> None:  # a resource class of its own, as every SDK resource is
        super().__init__("test:index:Thing", name, {"n": 1})


def test_resources_register_without_a_stack_trace_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    requests = recorded_requests(monkeypatch)

    def program() -> None:
        _Thing("thing")

    run = run_program(program, project="p", stack="s", config={})

    assert [resource.name for resource in run.resources] == ["thing"]
    (thing,) = [request for request in requests if request.name == "thing"]
    assert list(thing.stackTrace.frames) == [] and not thing.HasField("sourcePosition")


class _Outer:
    def __init__(self) -> None:
        self.inner = _Middle()


class _Middle:
    def __init__(self) -> None:
        self.inner = _Inner()


class _Inner:
    def __init__(self) -> None:  # the SDK's trace starts below the third __init__ up the stack
        self.trace = runtime_resource._get_stack_trace()


def test_outside_an_offline_run_the_sdk_still_reads_the_stack() -> None:
    run_program(lambda: None, project="p", stack="s", config={})  # the SDK's function is wrapped by now

    frames = _Outer().inner.inner.trace.frames

    assert any(frame.pc.uri.endswith("test_offline_source_positions.py") for frame in frames)
