"""``check``, ``plan`` and the components refuse the same configs, each with a clean ``error:`` line.

Every rule that once lived only in a component's args check (a config ``check`` accepted and ``plan`` or
``pulumi up`` then ended in "internal error") is run three ways here: the stack file through ``gpupools check``
and ``gpupools plan``, and the same values as the component's arguments under the recording mocks.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from gpupools.testing import RecordingMocks, run_program
from support.base_configs import VALID_AWS
from support.cli import run_cli
from support.stack_files import write_stack_file

SUBNET, SUBNET_B = "subnet-0123456789abcdef0", "subnet-89abcdef"
VPC = "vpc-0123456789abcdef0"
GROUP_ARN = "arn:aws:resource-groups:us-east-1:123456789012:group/p5-blocks"
NODE_GROUP = {
    "cluster_name": "gpu-eks",
    "subnet_ids": [SUBNET],
    "node_group_name": "p4d",
    "instance_type": "p4d.24xlarge",
    "desired_size": 1,
    "node_role_arn": "arn:aws:iam::123456789012:role/gpu-eks-nodes",
}

# (id, change to the stack's first pool, change to its cluster, component, component args, field, arg)
CASES = [
    (
        "capacity-block-with-group-arn",
        {"capacityType": "CAPACITY_BLOCK", "capacityReservation": GROUP_ARN, "subnetIds": [SUBNET]},
        {},
        "EksGpuNodeGroup",
        {**NODE_GROUP, "capacity_type": "CAPACITY_BLOCK", "capacity_reservation": GROUP_ARN},
        "gpuPools[0].capacityReservation",
        "capacity_reservation",
    ),
    (
        "capacity-block-without-reservation",
        {"capacityType": "CAPACITY_BLOCK", "subnetIds": [SUBNET]},
        {},
        "EksGpuNodeGroup",
        {**NODE_GROUP, "capacity_type": "CAPACITY_BLOCK"},
        "gpuPools[0].capacityReservation",
        "capacity_reservation",
    ),
    (
        "reservation-not-an-id-or-arn",
        {"capacityReservation": "my-reservation", "subnetIds": [SUBNET]},
        {},
        "EksGpuNodeGroup",
        {**NODE_GROUP, "capacity_reservation": "my-reservation"},
        "gpuPools[0].capacityReservation",
        "capacity_reservation",
    ),
    (
        "efa-across-two-subnets",
        {"efa": True, "subnetIds": [SUBNET, SUBNET_B]},
        {"subnetIds": [SUBNET, SUBNET_B], "vpcId": VPC},
        "EksGpuNodeGroup",
        {**NODE_GROUP, "subnet_ids": [SUBNET, SUBNET_B], "efa": True, "efa_interfaces": 4},
        "gpuPools[0].subnetIds",
        "subnet_ids",
    ),
    (
        "vpc-without-subnets",
        {},
        {"vpcId": VPC},
        "EksCluster",
        {"name": "gpu-eks", "vpc_id": VPC},
        "cluster.vpcId",
        "vpc_id",
    ),
]


def _stack_file(folder: Path, pool: dict, cluster: dict) -> Path:
    config = copy.deepcopy(VALID_AWS)
    config["gpupools:gpuPools"][0].update(pool)
    config["gpupools:cluster"].update(cluster)
    return write_stack_file(folder, config, "refused")


def _clean_refusal(lines: list[str], field: str) -> None:
    assert lines, "nothing printed"
    assert all(line.startswith("error: ") for line in lines), lines
    assert not any("internal error" in line for line in lines), lines
    assert any(line.startswith(f"error: gpupools:{field}: ") for line in lines), lines


@pytest.mark.parametrize(("pool", "cluster", "field"), [(c[1], c[2], c[5]) for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("command", ["check", "plan"])
def test_check_and_plan_refuse_it(tmp_path, command, pool, cluster, field):
    run = run_cli(command, "--config", str(_stack_file(tmp_path, pool, cluster)))
    assert run.code == 2, (run.code, run.err)
    _clean_refusal(run.lines, field)


@pytest.mark.parametrize(("kind", "args", "arg"), [(c[3], c[4], c[6]) for c in CASES], ids=[c[0] for c in CASES])
def test_the_component_refuses_it(kind, args, arg):
    from gpupools import provider

    component = {c.__name__: c for c in provider.COMPONENTS}[kind]
    mocks = RecordingMocks()
    with pytest.raises((TypeError, ValueError)) as caught:
        run_program(lambda: component("bad", args), project="args", stack="test", config={}, mocks=mocks)
    assert str(caught.value).startswith(f"{kind}('bad') args.{arg}: "), str(caught.value)
    assert "internal error" not in str(caught.value)
    assert mocks.resources == []


def test_a_capacity_block_with_its_reservation_id_is_still_accepted(tmp_path):
    path = _stack_file(
        tmp_path,
        {"capacityType": "CAPACITY_BLOCK", "capacityReservation": "cr-02168da1478b509e0", "subnetIds": [SUBNET]},
        {},
    )
    for command in ("check", "plan"):
        run = run_cli(command, "--config", str(path))
        assert run.code == 0, run.err
