"""The scale-from-zero stacks of ``tests/domain/test_autoscaling.py`` (the rules and the tags computed) and
``tests/platform/test_autoscaling_program.py`` (the same tags recorded from the components and the program), and
the published figures both check them against."""

from __future__ import annotations

CLUSTER = "gpu-eks"
TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}  # README gpuToleration
MIG_STATE = "nvidia.com/mig.config.state"  # NVIDIA gpu-operator-mig docs
MIG_CONFIG = "nvidia.com/mig.config"
DP_CONFIG = "nvidia.com/device-plugin.config"  # device plugin README v0.20.0

EKS = {
    "gpupools:cloud": "aws",
    "gpupools:cluster": {
        "name": CLUSTER,
        "region": "us-east-1",
        "systemPool": {"size": "m6i.large"},
        "autoscaler": {"install": True},
    },
    "gpupools:gpuPools": [
        {
            "name": "p4d",
            "size": "p4d.24xlarge",
            "count": 0,
            "autoscaling": {"minCount": 0, "maxCount": 4},
            "mig": {"layout": "all-balanced"},
        },
        {
            "name": "g5",
            "size": "g5.12xlarge",
            "count": 0,
            "autoscaling": {"minCount": 0, "maxCount": 3},
            "sharing": {"timeSlicing": {"replicas": 4, "renameByDefault": True}},
        },
    ],
    "gpupools:gpuSoftware": {"installer": "gpu-operator", "migStrategy": "mixed"},
}
EXPECTED_EKS = {
    "p4d": {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8},
    "g5": {"nvidia.com/gpu.shared": 16},
}
# GPUs per instance (EC2 accelerated computing instance types: p4d.24xlarge 8x A100, g5.12xlarge 4x A10G): the
# autoscaler's AWS provider starts each template node with this many nvidia.com/gpu.
INSTANCE_GPUS = {"p4d": 8, "g5": 4}
# Neither pool advertises whole GPUs (MIG mixed, renamed time-slicing), so its template must say 0.
NO_WHOLE_GPUS = {"nvidia.com/gpu": 0}
AKS = {
    "gpupools:cloud": "azure",
    "gpupools:cluster": {
        "name": "gpu-dev",
        "resourceGroup": "gpu-dev-rg",
        "location": "southcentralus",
        "systemPool": {"size": "Standard_D4s_v5"},
    },
    "gpupools:gpuPools": [
        {
            "name": "mig1g",
            "size": "Standard_ND96asr_v4",
            "count": 1,
            "autoscaling": {"minCount": 1, "maxCount": 4},
            "mig": {"profile": "MIG1g"},
        }
    ],
    "gpupools:gpuSoftware": {"installer": "device-plugin", "migStrategy": "single"},
    "gpupools:tags": {"team": "ml"},
}
