"""Karpenter stack configs for tests (issue 38): the shipped ``Pulumi.karpenter.yaml``'s pools, and variations."""

from __future__ import annotations

import copy

KARPENTER_AWS = {
    "gpupools:cloud": "aws",
    "gpupools:cluster": {
        "name": "gpu-karpenter",
        "region": "us-east-1",
        "systemPool": {"size": "m6i.large"},
        "karpenter": {"install": True},
    },
    "gpupools:gpuPools": [
        {
            "name": "p4d-1g",
            "size": "p4d.24xlarge",
            "provisioner": "karpenter",
            "maxCount": 2,
            "mig": {"layout": "all-1g.5gb"},
        },
        {"name": "l40s", "size": "g6e.12xlarge", "provisioner": "karpenter", "maxCount": 4},
    ],
    "gpupools:gpuSoftware": {"installer": "gpu-operator", "version": "v26.7.0", "migStrategy": "mixed"},
}


def karpenter_config(*pools: dict, **software) -> dict:
    """The Karpenter stack with ``pools`` (each a Karpenter pool's keys) instead of its own, if any are given."""
    raw = copy.deepcopy(KARPENTER_AWS)
    if pools:
        raw["gpupools:gpuPools"] = [{"provisioner": "karpenter", "maxCount": 2, **pool} for pool in pools]
    raw["gpupools:gpuSoftware"].update(software)
    return raw
