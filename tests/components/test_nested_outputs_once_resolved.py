"""Outputs nested in list and dict args are checked once they resolve, as plain values are (issue 25): a bad item
fails the deployment naming its field and registers nothing built from it, a secret item is never quoted, and good
items reach the registered inputs as plain values, each keeping its own secretness."""

from __future__ import annotations

import pulumi
import pytest

from gpupools.aws import EksCluster, EksGpuNodeGroup
from gpupools.azure import AksGpuPool
from gpupools.offline_runtime.mocks import SECRET
from gpupools.testing import RecordingMocks
from support.resources import run_mocked

SUBNET = "subnet-0123456789abcdef0"
NODE_GROUP = {
    "cluster_name": "gpu-eks",
    "subnet_ids": [SUBNET],
    "node_role_arn": "arn:aws:iam::123456789012:role/gpu-eks-nodes",
    "node_group_name": "a100",
    "instance_type": "p4d.24xlarge",
    "desired_size": 1,
}
AKS_POOL = {
    "cluster_name": "gpu-dev",
    "resource_group_name": "gpu-dev-rg",
    "pool_name": "a100",
    "vm_size": "Standard_ND96asr_v4",
    "count": 1,
}
NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup"
AGENT_POOL = "azure-native:containerservice:AgentPool"
MIG_CONFIG = "nvidia.com/mig.config"


def _refused(program) -> tuple[str, RecordingMocks]:
    mocks = RecordingMocks()
    with pytest.raises(Exception) as caught:  # Pulumi raises it as the registration's error
        run_mocked(program, mocks=mocks)
    return str(caught.value), mocks


def _registered(mocks: RecordingMocks, type_: str) -> list:
    return [r for r in mocks.resources if r.type == type_]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            lambda: {"subnet_ids": [pulumi.Output.from_input(SUBNET), pulumi.Output.from_input(5)]},
            "args.subnet_ids[1]: Input should be a valid string (once resolved)",
        ),
        (
            lambda: {"subnet_ids": [pulumi.Output.from_input(SUBNET), pulumi.Output.from_input(SUBNET)]},
            "args.subnet_ids: ",  # the same subnet twice: a rule over the whole list, once it has resolved
        ),
        (
            lambda: {"labels": {MIG_CONFIG: pulumi.Output.from_input("all-4g.40gb")}},
            f"args.labels: {MIG_CONFIG}: [the value] is not an NVIDIA layout for A100",
        ),
        (
            lambda: {"taints": [{"key": "gpu", "value": "x", "effect": pulumi.Output.from_input("Never")}]},
            "args.taints[0].effect: Input should be 'NoSchedule', 'PreferNoSchedule' or 'NoExecute' (once resolved)",
        ),
        (
            lambda: {"taints": [pulumi.Output.from_input({"key": "gpu", "value": "x", "effect": "Never"})]},
            "args.taints[0].effect:",
        ),
    ],
    ids=["not-a-string", "twice", "mig-layout", "effect", "taint-output"],
)
def test_a_nested_output_that_resolves_to_a_bad_value_fails_naming_the_field(args, says: str) -> None:
    message, mocks = _refused(lambda: EksGpuNodeGroup("gpu", {**NODE_GROUP, **args()}))
    assert says in message and "EksGpuNodeGroup('gpu')" in message, message
    assert not _registered(mocks, NODE_GROUP_TYPE)  # nothing built from the bad value registered


def test_the_same_value_plain_is_refused_by_the_same_rule() -> None:
    from gpupools.component_args import ComponentArgsError

    with pytest.raises(ComponentArgsError, match=f"args.labels: {MIG_CONFIG}: 'all-4g.40gb' is not an NVIDIA layout"):
        run_mocked(lambda: EksGpuNodeGroup("gpu", {**NODE_GROUP, "labels": {MIG_CONFIG: "all-4g.40gb"}}))


def test_a_secret_item_that_resolves_to_a_bad_value_is_not_quoted() -> None:
    def program() -> None:
        taints = [{"key": "gpu", "value": pulumi.Output.secret("Sekr3t Value"), "effect": "NoSchedule"}]
        EksGpuNodeGroup("gpu", {**NODE_GROUP, "taints": taints})

    message, _ = _refused(program)
    assert "args.taints[0].value" in message and "Sekr3t" not in message, message


def test_a_cluster_refuses_a_nested_output_subnet_of_the_wrong_shape() -> None:
    def program() -> None:
        subnets = [pulumi.Output.from_input(SUBNET), pulumi.Output.from_input("subnet-x")]
        EksCluster("gpu", {"name": "gpu-eks", "subnet_ids": subnets, "vpc_id": "vpc-0123456789abcdef0"})

    message, _ = _refused(program)
    assert "args.subnet_ids[1]: allowed: a subnet id" in message and "(once resolved)" in message, message


def test_good_nested_outputs_register_as_plain_values_each_keeping_its_secretness() -> None:
    args = lambda: {  # noqa: E731 (outputs are made inside the program, on its loop)
        **NODE_GROUP,
        "subnet_ids": [pulumi.Output.from_input(SUBNET), "subnet-0123456789abcdef1"],
        "labels": {MIG_CONFIG: pulumi.Output.from_input("all-3g.20gb"), "team": pulumi.Output.secret("ml")},
        "taints": [
            {"key": "gpu", "value": pulumi.Output.from_input("a100"), "effect": pulumi.Output.from_input("NoExecute")},
            pulumi.Output.from_input({"key": "x", "value": "y", "effect": "NoSchedule"}),
        ],
    }
    run = run_mocked(lambda: EksGpuNodeGroup("gpu", args()))
    [group] = [r for r in run.resources if r.type == NODE_GROUP_TYPE]
    assert group.inputs["subnetIds"] == [SUBNET, "subnet-0123456789abcdef1"]
    assert group.inputs["labels"] == {MIG_CONFIG: "all-3g.20gb", "team": SECRET}  # only the secret item is secret
    assert group.inputs["taints"] == [
        {"key": "gpu", "value": "a100", "effect": "NO_EXECUTE"},
        {"key": "x", "value": "y", "effect": "NO_SCHEDULE"},
    ]


def test_an_aks_pool_takes_nested_outputs_in_labels_and_zones() -> None:
    labels = lambda: {"team": pulumi.Output.from_input("ml")}  # noqa: E731
    run = run_mocked(lambda: AksGpuPool("gpu", {**AKS_POOL, "node_labels": labels(), "availability_zones": ["1"]}))
    [pool] = [r for r in run.resources if r.type == AGENT_POOL]
    assert pool.inputs["nodeLabels"] == {"team": "ml"}
    message, mocks = _refused(
        lambda: AksGpuPool("gpu", {**AKS_POOL, "node_labels": {MIG_CONFIG: pulumi.Output.from_input("all-4g.40gb")}})
    )
    assert f"args.node_labels: {MIG_CONFIG}: [the value] is not an NVIDIA layout" in message, message
    assert not _registered(mocks, AGENT_POOL)
