"""The DRA test stacks issue 24 names: an EKS p4d.24xlarge all-balanced pool (the MIG manager cuts it), a
time-slicing pool, an MPS pool, and a Kubernetes 1.34 EKS stack with the cluster autoscaler. Plain stack-file
dicts, so a test loads them (``load_stack``) or plans them (``stack_files.plan_config``) as it needs.
"""

from __future__ import annotations

from typing import Any

AKS_CLUSTER = {
    "name": "gpu-dra",
    "resourceGroup": "rg",
    "location": "southcentralus",
    "systemPool": {"size": "Standard_D4s_v5"},
}
EKS_CLUSTER = {"name": "gpu-dra", "region": "us-east-1", "systemPool": {"size": "m6i.large"}}


def _stack(cloud: str, version: str, pools: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    cluster = {**(AKS_CLUSTER if cloud == "azure" else EKS_CLUSTER), "kubernetesVersion": version}
    software = {"installer": "dra-driver", **extra.pop("software", {})}
    cluster.update(extra.pop("cluster", {}))
    return {"cloud": cloud, "cluster": cluster, "gpuPools": pools, "gpuSoftware": software, **extra}


# Kubernetes 1.34, the first release with DRA on by default: one AKS Standard_ND96asr_v4 cut into MIG1g (56 devices per
# node), and one EKS p4d.24xlarge all-balanced; the stacks `plan`, `verify` and the hostile catalogue test DRA with.
AKS_MIG1G_134 = _stack("azure", "1.34", [{"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}}])
EKS_BALANCED_134 = _stack(
    "aws", "1.34", [{"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}}]
)

# 8x A100 40GB, each cut 2x 1g.5gb + 1x 2g.10gb + 1x 3g.20gb by the GPU Operator's MIG manager.
P4D_BALANCED = _stack("aws", "1.36", [{"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}}])
# One A100 80GB per node, time-sliced by 4 pods.
TIME_SLICING = _stack(
    "azure",
    "1.36",
    [{"name": "shared", "size": "Standard_NC24ads_A100_v4", "sharing": {"timeSlicing": {"replicas": 4}}}],
    software={"draAlphaGates": ["TimeSlicingSettings"]},
)
# One A10G per node, shared through MPS by 4 pods.
MPS = _stack(
    "aws",
    "1.36",
    [{"name": "mps", "size": "g5.xlarge", "sharing": {"mps": {"replicas": 4, "allowPrivilegedHostPID": True}}}],
    software={"draAlphaGates": ["MPSSupport"]},
)
# Kubernetes 1.34: the autoscaler image is 1.34.x, whose DRA handling is off unless the flag is set.
AUTOSCALED_134 = _stack(
    "aws",
    "1.34",
    [{"name": "a10g", "size": "g5.xlarge", "autoscaling": {"minCount": 1, "maxCount": 4}}],
    cluster={"autoscaler": {"install": True}},
)

STACKS = {"p4d-balanced": P4D_BALANCED, "time-slicing": TIME_SLICING, "mps": MPS, "autoscaled-1.34": AUTOSCALED_134}


def pulumi_config(stack: dict[str, Any]) -> dict[str, Any]:
    """The stack as a Pulumi stack config (``gpupools:<key>``), for ``stack_files.plan_config``."""
    return {f"gpupools:{key}": value for key, value in stack.items()}
