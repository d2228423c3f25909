"""The stacks ``plan.py`` measures: an AKS and an EKS stack file with a given number of GPU pools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

AKS_PROFILES = ("MIG1g", "MIG2g", "MIG3g")
EKS_LAYOUTS = ("all-balanced", "all-1g.5gb", "all-3g.20gb")


def aks_config(pools: int) -> dict[str, Any]:
    return {
        "azure-native:location": "southcentralus",
        "gpupools:cloud": "azure",
        "gpupools:cluster": {
            "name": "gpu-bench",
            "create": True,
            "resourceGroup": "gpu-bench-rg",
            "location": "southcentralus",
            "systemPool": {"size": "Standard_D4s_v5", "count": 2},
        },
        "gpupools:gpuPools": [
            {
                "name": f"pool{i}",
                "size": "Standard_ND96asr_v4",
                "count": 1,
                "mig": {"profile": AKS_PROFILES[i % len(AKS_PROFILES)]},
            }
            for i in range(pools)
        ],
        "gpupools:gpuSoftware": {
            "installer": "device-plugin",
            "version": "0.20.0",
            "migStrategy": "mixed",
            "gfd": True,
        },
    }


def eks_config(pools: int) -> dict[str, Any]:
    return {
        "aws:region": "us-east-1",
        "gpupools:cloud": "aws",
        "gpupools:cluster": {
            "name": "gpu-bench",
            "create": True,
            "region": "us-east-1",
            "systemPool": {"size": "m6i.large", "count": 2},
        },
        "gpupools:gpuPools": [
            {
                "name": f"pool{i}",
                "size": "p4d.24xlarge",
                "count": 1,
                "mig": {"layout": EKS_LAYOUTS[i % len(EKS_LAYOUTS)]},
            }
            for i in range(pools)
        ],
        "gpupools:gpuSoftware": {
            "installer": "gpu-operator",
            "version": "v26.7.0",
            "migStrategy": "mixed",
            "gfd": True,
        },
    }


STACKS = {"aks": aks_config, "eks": eks_config}


def write_stack(folder: Path, stack: str, pools: int) -> Path:
    """``Pulumi.<stack>-<pools>.yaml``; JSON is YAML, so no YAML library is needed in this process."""
    path = folder / f"Pulumi.{stack}-{pools}.yaml"
    path.write_text(json.dumps({"config": STACKS[stack](pools)}, indent=1), encoding="utf-8")
    return path
