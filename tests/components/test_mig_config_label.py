"""Pool components check ``nvidia.com/mig.config`` against the size's GPU by the stack path's rule (issue 25):
``all-4g.40gb`` is an A100-80GB layout, so a p4d (A100-40GB) node group carrying it is refused before it
registers, as the stack file's pool would be; the GPU's own layouts and custom ones pass."""

from __future__ import annotations

import pytest

from gpupools.component_args import (
    AksGpuPoolArgsModel,
    ComponentArgsError,
    EksGpuNodeGroupArgsModel,
    check_args,
)

EKS = {
    "cluster_name": "gpu-eks",
    "subnet_ids": ["subnet-0123456789abcdef0"],
    "node_role_arn": "arn:aws:iam::123456789012:role/gpu-eks-nodes",
    "node_group_name": "a100",
    "instance_type": "p4d.24xlarge",
    "desired_size": 1,
}
AKS = {
    "cluster_name": "gpu-dev",
    "resource_group_name": "gpu-dev-rg",
    "pool_name": "a100",
    "vm_size": "Standard_ND96asr_v4",
    "count": 1,
}
LABEL = "nvidia.com/mig.config"


@pytest.mark.parametrize("layout", ["all-4g.40gb", "all-1g.20gb", "all-none"])
def test_eks_refuses_a_layout_its_gpu_does_not_have(layout: str) -> None:
    with pytest.raises(ComponentArgsError) as error:
        check_args(EksGpuNodeGroupArgsModel, "EksGpuNodeGroup", "a100", {**EKS, "labels": {LABEL: layout}})
    assert f"labels: {LABEL}: '{layout}' is not an NVIDIA layout for A100" in str(error.value)
    assert "all-3g.20gb" in str(error.value)  # what the A100-40GB offers


def test_aks_refuses_it_the_same_way() -> None:
    with pytest.raises(ComponentArgsError, match=f"node_labels: {LABEL}: 'all-4g.40gb' is not an NVIDIA layout"):
        check_args(AksGpuPoolArgsModel, "AksGpuPool", "a100", {**AKS, "node_labels": {LABEL: "all-4g.40gb"}})


def test_a_size_without_mig_refuses_any_layout_but_disabled() -> None:
    args = {**EKS, "instance_type": "g5.xlarge", "labels": {LABEL: "all-1g.5gb"}}
    with pytest.raises(ComponentArgsError, match="do not support MIG; allowed: all-disabled"):
        check_args(EksGpuNodeGroupArgsModel, "EksGpuNodeGroup", "a10", args)
    check_args(EksGpuNodeGroupArgsModel, "EksGpuNodeGroup", "a10", {**args, "labels": {LABEL: "all-disabled"}})


@pytest.mark.parametrize("layout", ["all-3g.20gb", "all-balanced", "all-disabled", "gpupools-a100"])
def test_the_gpus_layouts_and_custom_ones_pass(layout: str) -> None:
    check_args(EksGpuNodeGroupArgsModel, "EksGpuNodeGroup", "a100", {**EKS, "labels": {LABEL: layout}})
