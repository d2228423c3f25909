"""Running a program under the recording mocks, and finding what it registered.

Two shapes of result: a mocked run (``ProgramRun``) records ``RecordedResource`` objects (``.type``,
``.name``); an offline plan (``Plan``) holds resource dicts (``["type"]``, ``["name"]``). Each lookup that
expects exactly one resource fails on none or several.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpupools.component_args import ComponentArgsError
from gpupools.testing import RecordingMocks, run_program


def run_mocked(program: Any, *, project: str = "components", stack: str = "test", mocks: RecordingMocks | None = None):
    """``program`` under the recording mocks (fresh ones unless given), with no stack config."""
    return run_program(program, project=project, stack=stack, config={}, mocks=mocks)


def one(run: Any, type_: str):
    """The one resource of ``type_`` a mocked run registered."""
    (resource,) = [r for r in run.resources if r.type == type_]
    return resource


def named(run: Any, name: str):
    """The one resource named ``name`` a mocked run registered."""
    (resource,) = [r for r in run.resources if r.name == name]
    return resource


def plan_of_type(plan: Any, type_: str) -> list[dict[str, Any]]:
    """The resources of ``type_`` in an offline plan."""
    return [r for r in plan.resources if r["type"] == type_]


def plan_one(plan: Any, type_: str) -> dict[str, Any]:
    """The one resource of ``type_`` in an offline plan."""
    (resource,) = plan_of_type(plan, type_)
    return resource


def plan_named(plan: Any, name: str) -> dict[str, Any]:
    """The one resource named ``name`` in an offline plan."""
    (resource,) = [r for r in plan.resources if r["name"] == name]
    return resource


def component_refusal(kind: str, args: Any) -> tuple[list[str], RecordingMocks]:
    """The lines of the ``ComponentArgsError`` the component ``kind`` (by class name) raises for ``args`` under
    the mocks, with the mocks, so a test can also check that nothing was registered."""
    from gpupools import provider

    component = {c.__name__: c for c in provider.COMPONENTS}[kind]
    mocks = RecordingMocks()
    with pytest.raises(ComponentArgsError) as caught:
        run_program(lambda: component("bad", args), project="args", stack="test", config={}, mocks=mocks)
    return str(caught.value).splitlines(), mocks
