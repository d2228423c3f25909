"""Components keep the stack's promises: GPU pools tainted by default, and EksCluster's network rule as the config's.

What the engine receives is read from the recording mocks; the taint expected is the one the NVIDIA device plugin
chart's NFD worker tolerates (``nvidia.com/gpu``, value ``present``, NoSchedule), written out, not imported.
"""

from __future__ import annotations

import pytest

from gpupools.testing import RecordingMocks, run_program
from support.resources import named, run_mocked

GPU_TAINT = "nvidia.com/gpu=present:NoSchedule"
EKS_GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}
AKS = {
    "cluster_name": "gpu-dev",
    "resource_group_name": "gpu-dev-rg",
    "pool_name": "whole",
    "vm_size": "Standard_NC24ads_A100_v4",
    "count": 1,
}
EKS = {
    "cluster_name": "gpu-eks",
    "subnet_ids": ["subnet-0123456789abcdef0"],
    "node_group_name": "p4d",
    "instance_type": "p4d.24xlarge",
    "desired_size": 1,
    "node_role_arn": "arn:aws:iam::123456789012:role/gpu-eks-nodes",
}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, [GPU_TAINT]),
        ({"node_taints": None}, [GPU_TAINT]),
        ({"node_taints": []}, []),  # an explicit empty list: the user asked for an untainted pool
        ({"node_taints": ["example.com/team=ml:NoExecute"]}, ["example.com/team=ml:NoExecute"]),
    ],
    ids=["unset", "none", "explicit-empty", "explicit"],
)
def test_aks_gpu_pool_is_tainted_unless_told_otherwise(given, expected):
    from gpupools.azure import AksGpuPool

    run = run_mocked(lambda: AksGpuPool("whole", {**AKS, **given}))
    assert named(run, "whole-pool").inputs.get("nodeTaints", []) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, [EKS_GPU_TAINT]),
        ({"taints": None}, [EKS_GPU_TAINT]),
        ({"taints": []}, []),
        (
            {"taints": [{"key": "example.com/team", "value": "ml", "effect": "NoExecute"}]},
            [{"key": "example.com/team", "value": "ml", "effect": "NO_EXECUTE"}],
        ),
    ],
    ids=["unset", "none", "explicit-empty", "explicit"],
)
def test_eks_gpu_node_group_is_tainted_unless_told_otherwise(given, expected):
    from gpupools.aws import EksGpuNodeGroup

    run = run_mocked(lambda: EksGpuNodeGroup("p4d", {**EKS, **given}))
    assert named(run, "p4d-ng").inputs.get("taints", []) == expected


def test_eks_cluster_refuses_subnets_without_their_vpc_like_the_config():
    from gpupools.aws import EksCluster

    mocks = RecordingMocks()
    with pytest.raises(ValueError) as caught:
        run_program(
            lambda: EksCluster("gpu-eks", {"name": "gpu-eks", "subnet_ids": ["subnet-0123456789abcdef0"]}),
            project="args",
            stack="test",
            config={},
            mocks=mocks,
        )
    assert str(caught.value).startswith("EksCluster('gpu-eks') args.vpc_id: is required with subnet_ids"), caught.value
    assert mocks.resources == []


def test_eks_cluster_with_subnets_and_vpc_still_registers():
    from gpupools.aws import EksCluster

    run = run_mocked(
        lambda: EksCluster(
            "gpu-eks",
            {"name": "gpu-eks", "subnet_ids": ["subnet-0123456789abcdef0"], "vpc_id": "vpc-0123456789abcdef0"},
        )
    )
    assert any(r.type == "gpupools:index:EksCluster" for r in run.resources)
