"""``GpuPlatform``'s per-pool outputs of plain values: the values the stack gives, in outputs that do not grow per key.

``Output.from_input`` of a dict makes one output per key and per item, deeply; at 50 pools that was a fifth of all
the outputs a plan makes. Capacities are published figures: a Standard_ND96asr_v4 carries 8x A100 40GB, and an
A100 40GB holds 7 MIG 1g slices.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpupools.platform import GpuPlatform
from gpupools.testing import run_program

MIG_1G_PER_ND96 = {"nvidia.com/gpu": 8 * 7}


def _args(pools: int, count: Any = 3) -> dict[str, Any]:
    return {
        "cloud": "azure",
        "cluster": {
            "name": "gpu-dev",
            "create": True,
            "resource_group": "gpu-dev-rg",
            "location": "southcentralus",
            "system_pool": {"size": "Standard_D4s_v5", "count": 2},
        },
        "gpu_pools": [
            {"name": f"mig{index}", "size": "Standard_ND96asr_v4", "count": count, "mig": {"profile": "MIG1g"}}
            for index in range(pools)
        ],
        "gpu_software": {"installer": "device-plugin", "version": "0.20.0", "mig_strategy": "single"},
    }


def _run(pools: int) -> Any:
    def program() -> None:
        platform = GpuPlatform("gpupools", _args(pools))
        for name in ("resources_per_node", "resources_total", "node_selectors", "cloud_pool_names", "tolerations"):
            pulumi.export(name, getattr(platform, name))
        pulumi.export("dra", platform.dra_classes)

    return run_program(program, project="gpupools", stack="test", config={})


def test_per_pool_outputs_carry_the_stacks_values() -> None:
    outputs = _run(2).outputs

    assert outputs["resources_per_node"] == {"mig0": MIG_1G_PER_ND96, "mig1": MIG_1G_PER_ND96}
    assert outputs["resources_total"] == {"mig0": {"nvidia.com/gpu": 3 * 56}, "mig1": {"nvidia.com/gpu": 3 * 56}}
    assert outputs["node_selectors"]["mig1"]["gpupools.io/pool"] == "mig1"
    # AKS agent pool names: the pool's name and, for a surge pool, its generation
    assert [(pool, name[:4]) for pool, name in outputs["cloud_pool_names"].items()] == [
        ("mig0", "mig0"),
        ("mig1", "mig1"),
    ]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in outputs["tolerations"]["mig0"]
    assert outputs["dra"] == {}  # no dra-driver installer


def test_plain_values_are_not_wrapped_key_by_key(monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped: list[Any] = []
    from_input = pulumi.Output.from_input

    def counting(value: Any) -> Any:
        if isinstance(value, (dict, list)) and value:
            wrapped.append(value)
        return from_input(value)

    monkeypatch.setattr(pulumi.Output, "from_input", staticmethod(counting))
    _run(1)
    one_pool = len(wrapped)
    wrapped.clear()
    _run(3)

    assert len(wrapped) == one_pool
