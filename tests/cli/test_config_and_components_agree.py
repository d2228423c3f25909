"""One rule set, run by both: each bad value the stack config refuses, the component refuses too, cleanly.

Each case is fed to ``gpupools check`` as a stack file and to the component under the recording mocks. Both must
refuse it with a clean message naming the field (an ``error:`` line, a ``ComponentArgsError``), never a crash or a
registered resource. Taints exist only as component arguments (the config has no taint key: gpupools sets them),
so those cases run on the component alone.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest

from support.base_configs import VALID_AWS
from support.cli import run_cli
from support.resources import component_refusal
from support.stack_files import write_stack_file

VALID_AZURE = {
    "gpupools:cloud": "azure",
    "gpupools:cluster": {
        "name": "gpu-dev",
        "resourceGroup": "gpu-dev-rg",
        "location": "southcentralus",
        "systemPool": {"size": "Standard_D4s_v5"},
    },
    "gpupools:gpuPools": [{"name": "whole", "size": "Standard_NC24ads_A100_v4", "count": 1}],
    "gpupools:gpuSoftware": {"installer": "device-plugin", "version": "0.20.0"},
}
SUBNET, VPC = "subnet-0123456789abcdef0", "vpc-0123456789abcdef0"
CRG = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/gpu-dev-rg/providers/"
    "Microsoft.Compute/capacityReservationGroups/a100"
)
CYRILLIC_A = "\u0430"  # looks like 'a'
GPU_TAINT = "nvidia.com/gpu=present:NoSchedule"
AKS_POOL = {
    "cluster_name": "gpu-dev",
    "resource_group_name": "gpu-dev-rg",
    "pool_name": "whole",
    "vm_size": "Standard_NC24ads_A100_v4",
    "count": 1,
}
EKS_GROUP = {
    "cluster_name": "gpu-eks",
    "subnet_ids": [SUBNET],
    "node_group_name": "p4d",
    "instance_type": "p4d.24xlarge",
    "desired_size": 1,
    "node_role_arn": "arn:aws:iam::123456789012:role/gpu-eks-nodes",
}
CHART = {"version": "0.20.0", "namespace": "nvidia-device-plugin", "values": {}}

# (id, config base, changes by section ("pool" is the first pool) or None, config field,
#  component, component args, component arg)
CASES = [
    (
        "aks-pool-named-system",
        VALID_AZURE,
        {"pool": {"name": "system"}},
        "gpuPools[0].name",
        "AksGpuPool",
        {**AKS_POOL, "pool_name": "system"},
        "pool_name",
    ),
    (
        "aks-size-with-a-newline",
        VALID_AZURE,
        {"pool": {"size": "Standard_NC24ads_A100_v4\n"}},
        "gpuPools[0].size",
        "AksGpuPool",
        {**AKS_POOL, "vm_size": "Standard_NC24ads_A100_v4\n"},
        "vm_size",
    ),
    (
        "aks-size-with-cyrillic",
        VALID_AZURE,
        {
            "customSizes": {f"Standard_NC24{CYRILLIC_A}ds_v9": {"gpu": "A100-80GB", "gpus": 1}},
            "pool": {"size": f"Standard_NC24{CYRILLIC_A}ds_v9"},
        },
        "customSizes",
        "AksGpuPool",
        {**AKS_POOL, "vm_size": f"Standard_NC24{CYRILLIC_A}ds_v9"},
        "vm_size",
    ),
    (
        "aks-mig-on-a-size-without-mig",
        VALID_AZURE,
        {"pool": {"size": "Standard_NC24s_v3", "mig": {"profile": "MIG1g"}}},
        "gpuPools[0].mig.profile",
        "AksGpuPool",
        {**AKS_POOL, "vm_size": "Standard_NC24s_v3", "gpu_instance_profile": "MIG1g"},
        "gpu_instance_profile",
    ),
    (
        "aks-reserved-label",
        VALID_AZURE,
        {"pool": {"labels": {"kubernetes.azure.com/mode": "user"}}},
        "gpuPools[0].labels",
        "AksGpuPool",
        {**AKS_POOL, "node_labels": {"kubernetes.azure.com/mode": "user"}},
        "node_labels",
    ),
    (
        "aws-size-on-aks",
        VALID_AZURE,
        {"pool": {"size": "p4d.24xlarge"}},
        "gpuPools[0].size",
        "AksGpuPool",
        {**AKS_POOL, "vm_size": "p4d.24xlarge"},
        "vm_size",
    ),
    (
        "aks-spot-with-reservation-group",
        VALID_AZURE,
        {"pool": {"priority": "Spot", "capacityReservationGroupId": CRG}},
        "gpuPools[0].capacityReservationGroupId",
        "AksGpuPool",
        {**AKS_POOL, "scale_set_priority": "Spot", "capacity_reservation_group_id": CRG},
        "capacity_reservation_group_id",
    ),
    (
        "aks-spot-max-price-inf",
        VALID_AZURE,
        {"pool": {"priority": "Spot", "spotMaxPrice": math.inf}},
        "gpuPools[0].spotMaxPrice",
        "AksGpuPool",
        {**AKS_POOL, "scale_set_priority": "Spot", "spot_max_price": math.inf},
        "spot_max_price",
    ),
    (
        "aks-spot-max-price-nan",
        VALID_AZURE,
        {"pool": {"priority": "Spot", "spotMaxPrice": math.nan}},
        "gpuPools[0].spotMaxPrice",
        "AksGpuPool",
        {**AKS_POOL, "scale_set_priority": "Spot", "spot_max_price": math.nan},
        "spot_max_price",
    ),
    (
        "aks-1000-duplicate-taints",
        None,
        None,
        None,
        "AksGpuPool",
        {**AKS_POOL, "node_taints": [GPU_TAINT] * 1000},
        "node_taints",
    ),
    (
        "azure-size-on-eks",
        VALID_AWS,
        {"pool": {"size": "Standard_ND96asr_v4"}},
        "gpuPools[0].size",
        "EksGpuNodeGroup",
        {**EKS_GROUP, "instance_type": "Standard_ND96asr_v4"},
        "instance_type",
    ),
    (
        "eks-instance-type-with-cyrillic",
        VALID_AWS,
        {
            "customSizes": {f"p9{CYRILLIC_A}.48xlarge": {"gpu": "H100-80GB", "gpus": 8}},
            "pool": {"size": f"p9{CYRILLIC_A}.48xlarge", "mig": None},
        },
        "customSizes",
        "EksGpuNodeGroup",
        {**EKS_GROUP, "instance_type": f"p9{CYRILLIC_A}.48xlarge"},
        "instance_type",
    ),
    (
        "eks-instance-type-with-a-newline",
        VALID_AWS,
        {"pool": {"size": "p4d.24xlarge\n"}},
        "gpuPools[0].size",
        "EksGpuNodeGroup",
        {**EKS_GROUP, "instance_type": "p4d.24xlarge\n"},
        "instance_type",
    ),
    (
        "eks-reserved-label",
        VALID_AWS,
        {"pool": {"labels": {"eks.amazonaws.com/nodegroup": "p4d"}}},
        "gpuPools[0].labels",
        "EksGpuNodeGroup",
        {**EKS_GROUP, "labels": {"eks.amazonaws.com/nodegroup": "p4d"}},
        "labels",
    ),
    (
        "eks-duplicate-pool-subnets",
        VALID_AWS,
        {"pool": {"subnetIds": [SUBNET, SUBNET]}},
        "gpuPools[0].subnetIds",
        "EksGpuNodeGroup",
        {**EKS_GROUP, "subnet_ids": [SUBNET, SUBNET]},
        "subnet_ids",
    ),
    (
        "eks-duplicate-cluster-subnets",
        VALID_AWS,
        {"cluster": {"subnetIds": [SUBNET, SUBNET], "vpcId": VPC}},
        "cluster.subnetIds",
        "EksCluster",
        {"name": "gpu-eks", "subnet_ids": [SUBNET, SUBNET], "vpc_id": VPC},
        "subnet_ids",
    ),
    (
        "eks-spot-with-reservation",
        VALID_AWS,
        {"pool": {"capacityType": "SPOT", "capacityReservation": "cr-02168da1478b509e0", "subnetIds": [SUBNET]}},
        "gpuPools[0].capacityReservation",
        "EksGpuNodeGroup",
        {**EKS_GROUP, "capacity_type": "SPOT", "capacity_reservation": "cr-02168da1478b509e0"},
        "capacity_reservation",
    ),
    (
        "eks-efa-on-a-size-without-efa",
        VALID_AWS,
        {
            "pool": {"size": "g5.xlarge", "mig": None, "efa": True, "subnetIds": [SUBNET]},
            "cluster": {"subnetIds": [SUBNET], "vpcId": VPC},
        },
        "gpuPools[0].efa",
        "EksGpuNodeGroup",
        {**EKS_GROUP, "instance_type": "g5.xlarge", "efa": True},
        "efa",
    ),
    (
        "eks-1000-duplicate-taints",
        None,
        None,
        None,
        "EksGpuNodeGroup",
        {**EKS_GROUP, "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}] * 1000},
        "taints",
    ),
    (
        "nvidia-charts-in-namespace-default",
        VALID_AZURE,
        {"gpuSoftware": {"namespace": "default"}},
        "gpuSoftware.namespace",
        "NvidiaDevicePlugin",
        {**CHART, "namespace": "default"},
        "namespace",
    ),
]
CONFIG_CASES = [case for case in CASES if case[1] is not None]


def _stack_file(folder: Path, base: dict, changes: dict) -> Path:
    config = copy.deepcopy(base)
    for section, values in changes.items():
        target = config["gpupools:gpuPools"][0] if section == "pool" else config.setdefault(f"gpupools:{section}", {})
        for key, value in values.items():
            if value is None:
                target.pop(key, None)
            else:
                target[key] = value
    return write_stack_file(folder, config, "refused")


@pytest.mark.parametrize("base", [VALID_AZURE, VALID_AWS], ids=["azure", "aws"])
def test_the_base_stacks_pass(tmp_path, base):
    run = run_cli("check", "--config", str(_stack_file(tmp_path, base, {})))
    assert run.code == 0, run.err


@pytest.mark.parametrize(("base", "changes", "field"), [c[1:4] for c in CONFIG_CASES], ids=[c[0] for c in CONFIG_CASES])
def test_check_refuses_it(tmp_path, base, changes, field):
    run = run_cli("check", "--config", str(_stack_file(tmp_path, base, changes)))
    assert run.code == 2, (run.code, run.err)
    assert run.lines and all(line.startswith("error: ") for line in run.lines), run.lines
    assert not any("internal error" in line for line in run.lines), run.lines
    assert any(line.startswith(f"error: gpupools:{field}") for line in run.lines), run.lines


@pytest.mark.parametrize(("kind", "args", "arg"), [c[4:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_component_refuses_it(kind, args, arg):
    lines, mocks = component_refusal(kind, args)
    assert any(line.startswith(f"{kind}('bad') args.{arg}: ") for line in lines), lines
    assert len(lines) <= 3, lines  # a thousand duplicates are one problem, not a thousand lines
    assert mocks.resources == []
