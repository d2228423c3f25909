"""An offline run skips the URN chains the SDK builds for nobody and unwraps each annotation once, and the engine
gets the same request.

``Resource.__init__`` turns every alias into a URN through a chain of outputs, read only when the monitor lacks alias
specs (the offline monitor has them), and each registration builds the URN a missing monitor would have answered.
``GpuPlatform`` aliases each child of the stack program: together, about a seventh of an AKS pool's instructions.
"""

from __future__ import annotations

import asyncio
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Optional

import pulumi
import pytest
from pulumi import _types as sdk_types
from pulumi.runtime import resource as runtime_resource
from pulumi.runtime.proto import resource_pb2

from gpupools.offline_runtime.mocks import SafeMockMonitor
from gpupools.testing import RecordingMocks, run_program
from support.monitor_requests import recorded_requests


class _Box(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions) -> None:
        super().__init__("test:index:Box", name, None, opts)
        self.child = pulumi.CustomResource("test:index:Thing", f"{name}-thing", {}, pulumi.ResourceOptions(parent=self))
        self.register_outputs({})


def test_the_offline_monitor_takes_alias_specs() -> None:
    # What the skip relies on: with specs, the SDK sends the options' aliases and never reads their URNs.
    monitor = SafeMockMonitor(RecordingMocks())
    answer = monitor.SupportsFeature(resource_pb2.SupportsFeatureRequest(id="aliasSpecs"))

    assert answer.hasSupport is True


def test_an_alias_reaches_the_engine_as_a_spec_and_stays_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    requests = recorded_requests(monkeypatch)
    alias = pulumi.Alias(parent=pulumi.ROOT_STACK_RESOURCE)
    boxes: list[_Box] = []

    def program() -> None:
        parent = pulumi.ComponentResource("test:index:Platform", "platform")
        boxes.append(_Box("box", pulumi.ResourceOptions(parent=parent, aliases=[alias])))

    run_program(program, project="p", stack="s", config={})

    (box,) = [request for request in requests if request.name == "box"]
    assert [(a.WhichOneof("alias"), a.spec.noParent) for a in box.aliases] == [("spec", True)]
    (thing,) = [request for request in requests if request.name == "box-thing"]
    assert list(thing.aliases) == []  # the engine derives a child's aliases from its parent's
    assert boxes[0]._aliases == [alias]  # not an Output: no URN was computed


def test_outside_an_offline_run_an_alias_still_becomes_a_urn() -> None:
    run_program(lambda: None, project="p", stack="s", config={})  # the SDK's function is wrapped by now
    urn = "urn:pulumi:s::p::test:index:Box::old"

    async def collapsed() -> Any:
        output = pulumi.resource.collapse_alias_to_urn(urn, "box", "test:index:Box", None)  # type: ignore[attr-defined]
        return output, await output.future()

    output, value = asyncio.run(collapsed())

    assert isinstance(output, pulumi.Output) and value == urn


URN_CASES = [
    ("thing", "test:index:Thing", "urn:pulumi:s::p::test:index:Platform::platform", None, None),
    ("thing", "test:index:Thing", "urn:pulumi:s::p::test:index:Platform$test:index:Box::box", None, None),
    ("thing", "test:index:Thing", None, None, None),
    ("thing", "test:index:Thing", None, "other-project", "other-stack"),
    ("thing", "test:index:Thing", "", None, None),
]


def test_an_offline_urn_of_strings_is_the_sdks_string_as_one_output(monkeypatch: pytest.MonkeyPatch) -> None:
    tracked: list[object] = []
    track = pulumi.Output._track

    def counting(self: pulumi.Output[Any]) -> None:
        tracked.append(self)
        track(self)

    monkeypatch.setattr(pulumi.Output, "_track", counting)
    made: list[tuple[int, Any, int, Any]] = []

    def program() -> None:
        async def both(case: tuple[Any, ...]) -> None:
            before = len(tracked)
            offline = runtime_resource.create_urn(*case)  # the name register_resource calls
            between = len(tracked)
            sdk = pulumi.create_urn(*case)  # bound to the SDK's own function when pulumi was imported
            after = len(tracked)
            made.append((between - before, await offline.future(), after - between, await sdk.future()))

        for case in URN_CASES:
            pulumi.Output.from_input(case).apply(lambda c: asyncio.ensure_future(both(c)))

    run_program(program, project="p", stack="s", config={})

    assert len(made) == len(URN_CASES)
    assert [shortcut for _, shortcut, _, _ in made] == [sdk for _, _, _, sdk in made]
    assert made[2][3] == "urn:pulumi:s::p::test:index:Thing::thing"
    assert {outputs for outputs, _, _, _ in made} == {1}
    assert all(outputs > 1 for _, _, outputs, _ in made)


class _Size:  # annotations of this module's own, so no earlier run in the process has unwrapped them
    pass


ANNOTATIONS: list[Any] = [
    Optional[pulumi.Input[_Size]],
    pulumi.Input[_Size],
    pulumi.Output[_Size],
    pulumi.Input[Sequence[pulumi.Input[_Size]]],
    Optional[pulumi.Input[Mapping[str, pulumi.Input[_Size]]]],
    _Size,
]


def test_an_offline_run_asks_the_sdk_to_unwrap_each_annotation_once(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []
    get_origin = typing.get_origin

    def counting(annotation: Any) -> Any:
        asked.append(annotation)
        return get_origin(annotation)

    unwrapped: list[tuple[Any, Any, int, int]] = []

    def program() -> None:
        monkeypatch.setattr(typing, "get_origin", counting)  # what the SDK's unwrap_type asks first
        for annotation in ANNOTATIONS:
            first_asks = len(asked)
            first = sdk_types.unwrap_type(annotation)
            between = len(asked)
            again = sdk_types.unwrap_type(annotation)
            unwrapped.append((first, again, between - first_asks, len(asked) - between))

    run_program(program, project="p", stack="s", config={})
    sdk = [sdk_types.unwrap_type(annotation) for annotation in ANNOTATIONS]  # outside a run: the SDK's function

    assert [(first, again) for first, again, _, _ in unwrapped] == [(want, want) for want in sdk]
    assert sdk[2] is _Size  # Output[T] unwrapped
    assert all(first_asks > 0 and again_asks == 0 for _, _, first_asks, again_asks in unwrapped)
