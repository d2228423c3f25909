"""Per-pool outputs for workloads in other stacks: every toleration beside the node selector (issue 16 item 14).

An AKS Spot node carries ``kubernetes.azure.com/scalesetpriority=spot:NoSchedule`` (AKS docs, spot-node-pool.md)
besides our ``nvidia.com/gpu`` taint, so ``gpuToleration`` alone never lands a pod there.
"""

from __future__ import annotations

from pathlib import Path

import pulumi

from gpupools.platform import GpuPlatform
from gpupools.testing import run_program
from support.stack_files import plan_config

GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
SPOT_TAINT = ("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule")
CONFIG = {
    "cloud": "azure",
    "cluster": {"name": "gpu", "resourceGroup": "rg", "location": "westus", "systemPool": {"size": "Standard_D4s_v5"}},
    "gpuPools": [
        {"name": "spot", "size": "Standard_NC24ads_A100_v4", "count": 1, "priority": "Spot"},
        {"name": "regular", "size": "Standard_NC24ads_A100_v4", "count": 1},
    ],
    "gpuSoftware": {"installer": "device-plugin", "migStrategy": "none"},
}


def _tolerates(toleration: dict, taint: tuple[str, str, str]) -> bool:
    """The Kubernetes rule: same key and effect, and Exists or Equal to the taint's value."""
    key, value, effect = taint
    return (
        toleration["key"] == key
        and toleration.get("effect") in (None, effect)
        and (toleration["operator"] == "Exists" or toleration.get("value") == value)
    )


def _spot_ok(tolerations: list[dict]) -> bool:
    """The GPU toleration and one for AKS's Spot taint, nothing else."""
    return len(tolerations) == 2 and GPU in tolerations and any(_tolerates(t, SPOT_TAINT) for t in tolerations)


def test_stack_output_carries_each_pools_tolerations(tmp_path: Path) -> None:
    pools = plan_config(tmp_path, {f"gpupools:{k}": v for k, v in CONFIG.items()}, "spot").outputs["gpuPools"]
    assert _spot_ok(pools["spot"]["tolerations"])
    assert pools["regular"]["tolerations"] == [GPU]
    assert pools["spot"]["nodeSelector"] == {"gpupools.io/pool": "spot"}


def test_gpu_platform_output_carries_each_pools_tolerations() -> None:
    args = {
        "cloud": "azure",
        "cluster": {
            "name": "gpu",
            "resource_group": "rg",
            "location": "westus",
            "system_pool": {"size": "Standard_D4s_v5"},
        },
        "gpu_pools": [{"name": "spot", "size": "Standard_NC24ads_A100_v4", "count": 1, "priority": "Spot"}],
        "gpu_software": {"installer": "device-plugin", "mig_strategy": "none"},
    }

    def program() -> None:
        platform = GpuPlatform("gpupools", args)
        pulumi.export("tolerations", platform.tolerations)
        pulumi.export("toleration", platform.gpu_toleration)

    outputs = run_program(program, project="gpupools", stack="test", config={}).outputs
    assert _spot_ok(outputs["tolerations"]["spot"])
    assert outputs["toleration"] == GPU  # kept for compatibility
