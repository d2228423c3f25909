"""The stack's exports reach the plan as the SDK's ``massage`` makes them, plain JSON copied without it.

``massage`` rebuilds every dict and list node by node; the stack program's per-pool exports are thousands of nodes
at 50 pools, so plain JSON values are copied directly. The SDK's function is the reference.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.runtime import settings
from pulumi.runtime.stack import massage

from gpupools.pulumi_internals import stack_exports
from gpupools.testing import run_program

PLAIN = {"gpu1": {"nodes": 2, "share": 0.5, "spot": False, "zones": ["1", "2"], "dra": None, "labels": {}}}


def test_plain_and_other_exports_are_what_massage_makes() -> None:
    seen: list[tuple[dict[str, Any], Any]] = []

    def program() -> None:
        pulumi.export("plain", PLAIN)
        pulumi.export("tupled", {"pair": (1, "two")})  # not plain JSON: massage turns the tuple into a list
        pulumi.export("name", "gpu1")
        root: Any = settings.get_root_resource()
        seen.append((stack_exports(), massage(root.outputs, [])))

    run_program(program, project="p", stack="s", config={})

    ((ours, sdk),) = seen
    assert ours == sdk
    assert ours["tupled"] == {"pair": [1, "two"]}
    assert ours["plain"] == PLAIN and ours["plain"] is not PLAIN and ours["plain"]["gpu1"] is not PLAIN["gpu1"]
