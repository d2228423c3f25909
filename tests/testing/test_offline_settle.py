"""The offline runtime finishes what a program left pending once per output, and still fails on the first failure.

``pulumi_internals.settle`` runs before the SDK's own wait, whose ``asyncio.wait(FIRST_COMPLETED)`` loop waits on
every pending output again each time one finishes: at 50 pools, a third of the plan's time.
"""

from __future__ import annotations

import asyncio

import pulumi
import pytest

from gpupools.errors import GpupoolsError
from gpupools.testing import run_program


def _waited(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many futures each ``asyncio.wait`` call of the run was handed (the SDK's and ours alike)."""
    sizes: list[int] = []
    original = asyncio.wait

    async def counting(futures, *args, **kwargs):
        sizes.append(len(futures))
        return await original(futures, *args, **kwargs)

    monkeypatch.setattr(asyncio, "wait", counting)
    return sizes


def test_each_pending_output_is_waited_on_about_once(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = _waited(monkeypatch)

    def program() -> None:
        for index in range(100):
            thing = pulumi.CustomResource("test:index:Thing", f"t{index}", {"n": index})
            pulumi.export(f"id{index}", thing.id.apply(lambda value: value.upper()))

    run = run_program(program, project="p", stack="s", config={})

    assert run.outputs["id42"] == "T42-ID"
    # 100 resources leave about 300 outputs and RPCs pending; the SDK's loop alone waits on ~1,900 futures here.
    assert sum(sizes) <= 4 * 100


def test_outputs_made_while_others_resolve_are_waited_for() -> None:
    def program() -> None:
        first = pulumi.CustomResource("test:index:Thing", "first", {"n": 1})

        def second(first_id: str) -> pulumi.Output[str]:
            # registered only once the first resource's id is known, then read in turn
            made = pulumi.CustomResource("test:index:Thing", "second", {"after": first_id})
            return made.id.apply(lambda value: f"{first_id}+{value}")

        pulumi.export("chain", first.id.apply(second))

    run = run_program(program, project="p", stack="s", config={})

    assert run.outputs["chain"] == "first-id+second-id"
    assert [resource.name for resource in run.resources] == ["first", "second"]
    assert run.resources[1].inputs == {"after": "first-id"}


def test_a_failing_output_still_fails_the_run_with_its_error() -> None:
    class Refused(Exception):
        pass

    def refuse(value: str) -> str:
        raise Refused(f"refused {value}")

    def program() -> None:
        things = [pulumi.CustomResource("test:index:Thing", f"t{index}", {"n": index}) for index in range(20)]
        pulumi.export("refused", things[7].id.apply(refuse))
        for thing in things:
            pulumi.export(thing._name, thing.id.apply(lambda value: value))

    with pytest.raises(Refused, match="refused t7-id"):
        run_program(program, project="p", stack="s", config={})


def test_a_check_of_ours_failing_is_raised_not_the_registration_it_broke() -> None:
    """A resource whose input failed our check fails to register too; the run reports our check, in its words."""

    class CheckFailed(GpupoolsError, ValueError):
        pass

    def check(value: int) -> int:
        raise CheckFailed("gpuPools[0].count: must be at least 1 (once resolved)")

    def program() -> None:
        checked = pulumi.Output.from_input(0).apply(check)
        pulumi.CustomResource("test:index:Thing", "uses-it", {"count": checked})

    with pytest.raises(CheckFailed, match=r"^gpuPools\[0\]\.count: must be at least 1 \(once resolved\)$"):
        run_program(program, project="p", stack="s", config={})
