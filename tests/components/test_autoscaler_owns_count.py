"""For autoscaled pools the autoscaler owns the node count: what the engine is told to ignore.

Asserted on what the recording mocks receive (the RegisterResourceRequest's ``ignoreChanges``, or the pulumi-eks
input that makes its own node group ignore the size), never on a Python return value. The property paths are the
pinned SDKs' own: pulumi-aws 7.51.1's ``eks.NodeGroup`` docstring ignores ``scalingConfig.desiredSize``, the
azure-native ``AgentPool`` input is ``count``, pulumi-eks 4.4.0's ``ManagedNodeGroup`` takes
``ignore_scaling_changes`` ("Whether to ignore changes to the desired size of the Auto Scaling Group. This is
useful when using Cluster Autoscaler.").
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from gpupools.testing import RecordingMocks, run_program
from support.base_configs import AWS, AZURE, config
from support.stack_files import plan_config

DESIRED_SIZE = "scalingConfig.desiredSize"
ROLE_ARN = "arn:aws:iam::123456789012:role/gpu-eks-nodes"
SUBNET = "subnet-0123456789abcdef0"


def test_the_property_paths_are_the_sdks_own() -> None:
    import pulumi_aws
    import pulumi_eks
    from pulumi_azure_native import containerservice

    # The module's text, not inspect.getsource(class): that parses the whole module with ast, which CPython 3.11.7
    # can refuse with "AST constructor recursion depth mismatch" late in a long run (gh-106905).
    source = Path(inspect.getfile(pulumi_aws.eks.NodeGroup)).read_text(encoding="utf-8")
    assert f'ignore_changes=["{DESIRED_SIZE}"]' in source
    assert "ignore_scaling_changes" in inspect.signature(pulumi_eks.ManagedNodeGroup._internal_init).parameters
    assert "count" in inspect.signature(containerservice.AgentPool._internal_init).parameters


def _run(program):
    mocks = RecordingMocks()
    return run_program(program, project="owns", stack="test", config={}, mocks=mocks)


@pytest.mark.parametrize(
    ("bounds", "ignored"),
    [
        ({"min_size": 0, "max_size": 4}, [DESIRED_SIZE]),
        ({}, None),
        ({"min_size": 2, "max_size": 2}, None),
        ({"min_size": 0, "max_size": 4, "ignore_scaling_changes": False}, None),
    ],
)
def test_an_aws_node_group_ignores_its_desired_size_when_autoscaled(bounds, ignored) -> None:
    from gpupools.aws import EksGpuNodeGroup

    def program():
        EksGpuNodeGroup(
            "p4d",
            {
                "cluster_name": "gpu-eks",
                "subnet_ids": [SUBNET],
                "node_role_arn": ROLE_ARN,
                "node_group_name": "p4d",
                "instance_type": "p4d.24xlarge",
                "desired_size": 2,
                **bounds,
            },
        )

    (group,) = [r for r in _run(program).resources if r.type == "aws:eks/nodeGroup:NodeGroup"]
    assert group.options.get("ignoreChanges") == ignored


@pytest.mark.parametrize(("bounds", "ignored"), [({"min_size": 0, "max_size": 4}, True), ({}, None)])
def test_a_pulumi_eks_node_group_is_told_to_ignore_scaling_changes(bounds, ignored) -> None:
    from gpupools.aws import EksCluster, EksGpuNodeGroup

    def program():
        cluster = EksCluster("gpu-eks", {"name": "gpu-eks"})
        EksGpuNodeGroup(
            "p4d",
            {
                "cluster": cluster.cluster,
                "node_group_name": "p4d",
                "instance_type": "p4d.24xlarge",
                "desired_size": 2,
                **bounds,
            },
        )

    (group,) = [r for r in _run(program).resources if r.type == "eks:index:ManagedNodeGroup" and r.name == "p4d-ng"]
    assert group.inputs.get("ignoreScalingChanges") is ignored


@pytest.mark.parametrize(("bounds", "ignored"), [({"min_count": 1, "max_count": 4}, ["count"]), ({}, None)])
def test_an_aks_pool_ignores_its_count_when_autoscaled(bounds, ignored) -> None:
    from gpupools.azure import AksGpuPool

    def program():
        AksGpuPool(
            "mig1g",
            {
                "cluster_name": "gpu-dev",
                "resource_group_name": "gpu-dev-rg",
                "pool_name": "mig1g",
                "vm_size": "Standard_ND96asr_v4",
                "count": 2,
                **bounds,
            },
        )

    (pool,) = [r for r in _run(program).resources if r.type == "azure-native:containerservice:AgentPool"]
    assert pool.options.get("ignoreChanges") == ignored


def test_the_program_hands_autoscaled_pools_to_the_autoscaler(tmp_path: Path) -> None:
    scaled = {"count": 1, "autoscaling": {"minCount": 0, "maxCount": 4}}
    eks = plan_config(tmp_path, config(AWS, scaled), "eks")
    # Named by its generation (issue 27: each generation a resource of its own).
    (group,) = [r for r in eks.resources if r["type"] == "eks:index:ManagedNodeGroup" and r["name"].startswith("p4d-")]
    assert group["inputs"]["ignoreScalingChanges"] is True
    aks = plan_config(tmp_path, config(AZURE, {"count": 1, "autoscaling": {"minCount": 1, "maxCount": 4}}), "aks")
    (pool,) = [r for r in aks.resources if r["type"] == "azure-native:containerservice:AgentPool"]
    assert pool["options"]["ignoreChanges"] == ["count"]
    fixed = plan_config(tmp_path, config(AWS, {"count": 1}), "fixed")
    (group,) = [
        r for r in fixed.resources if r["type"] == "eks:index:ManagedNodeGroup" and r["name"].startswith("p4d-")
    ]
    assert "ignoreScalingChanges" not in group["inputs"]
