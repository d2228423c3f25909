"""The EKS components wired with plain strings and outputs, as a TypeScript or YAML program would wire them.

Component references do not cross languages, so ``EksGpuNodeGroup`` also takes ``cluster_name``,
``node_role_arn`` and ``subnet_ids`` and then registers an ``aws.eks.NodeGroup`` itself; ``EksCluster``
outputs those links. Expected values are EKS's and IAM's documented shapes (CreateNodegroup's fields and
taint effects, DescribeCluster's ``vpcConfig``/``identity``, the IAM OIDC provider ARN, the node group's
``resources.autoScalingGroups``), not values read back from the code under test.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pytest

from gpupools.testing import RecordingMocks
from support.resources import named as _named, run_mocked as _run

CLUSTER = "gpu-eks"
ACCOUNT = "123456789012"  # the mocks' account
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/gpu-eks-nodes"
SUBNET_A, SUBNET_B = "subnet-0123456789abcdef0", "subnet-0fedcba9876543210"
VPC = "vpc-0123456789abcdef0"
CLUSTER_SG = "sg-0123456789abcdef0"  # the security group EKS creates for the cluster
ODCR = "cr-0123456789abcdef0"
CAPACITY_BLOCK = "cr-02168da1478b509e0"
ISSUER = "https://oidc.eks.us-east-1.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"
# IAM names an OIDC provider after its issuer, without the scheme.
OIDC_ARN = f"arn:aws:iam::{ACCOUNT}:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"
TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
AUTOSCALER_TAGS = {"k8s.io/cluster-autoscaler/enabled": "true", f"k8s.io/cluster-autoscaler/{CLUSTER}": "owned"}
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def _asg_name(node_group_name: str) -> str:
    """EKS names a node group's Auto Scaling group eks-<node group>-<uuid>."""
    return f"eks-{node_group_name}-0ac6b4ea-1111-2222-3333-444455556666"


class DescribedEks(RecordingMocks):
    """Answers what EKS reports and the default mocks leave out: a node group's Auto Scaling group, and
    DescribeCluster's VPC config, OIDC issuer and ARN for ``aws.eks.get_cluster``."""

    def new_resource(self, args) -> tuple[str, dict[str, Any]]:
        resource_id, state = super().new_resource(args)
        if args.typ == NODE_GROUP:
            name = args.inputs["nodeGroupName"]
            state = {**state, "resources": [{"autoscalingGroups": [{"name": _asg_name(name)}]}]}
        if args.typ == "eks:index:Cluster":
            state = {**state, "oidcProviderArn": OIDC_ARN, "oidcProviderUrl": ISSUER.removeprefix("https://")}
        return resource_id, state

    def call(self, args) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        result, failures = super().call(args)
        if args.token == "aws:eks/getCluster:getCluster":
            name = args.args["name"]
            result = {
                **result,
                "arn": f"arn:aws:eks:us-east-1:{ACCOUNT}:cluster/{name}",
                "vpcConfig": {
                    "vpcId": VPC,
                    "subnetIds": [SUBNET_A, SUBNET_B],
                    "clusterSecurityGroupId": CLUSTER_SG,
                    "securityGroupIds": [],
                    "endpointPrivateAccess": True,
                    "endpointPublicAccess": True,
                },
                "identities": [{"oidcs": [{"issuer": ISSUER}]}],
            }
        return result, failures


# --- EksGpuNodeGroup from strings --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def string_run():
    from gpupools.aws import EksGpuNodeGroup

    def program():
        common = {"cluster_name": CLUSTER, "subnet_ids": [SUBNET_A]}
        a100 = EksGpuNodeGroup(
            "a100",
            {
                **common,
                "node_role_arn": ROLE_ARN,
                "node_group_name": "a100",
                "instance_type": "p4d.24xlarge",
                "desired_size": 2,
                "min_size": 0,
                "max_size": 4,
                "labels": {"nvidia.com/mig.config": "all-balanced"},
                "taints": [TAINT],
                "capacity_reservation": ODCR,
                "efa": True,
                "efa_interfaces": 4,
                "disk_size_gb": 512,
                "tags": {"team": "ml"},
                "autoscaler_tags": AUTOSCALER_TAGS,
            },
        )
        EksGpuNodeGroup(
            "block",
            {
                **common,
                "node_role_arn": ROLE_ARN,
                "node_group_name": "block",
                "instance_type": "p5.48xlarge",
                "desired_size": 1,
                "capacity_type": "CAPACITY_BLOCK",
                "capacity_reservation": CAPACITY_BLOCK,
            },
        )
        # What another language hands over: outputs for the name, the subnets and the count.
        EksGpuNodeGroup(
            "spot",
            {
                "cluster_name": pulumi.Output.from_input(CLUSTER),
                "subnet_ids": pulumi.Output.from_input([SUBNET_B]),
                "node_group_name": "spot",
                "instance_type": "g6.12xlarge",
                "desired_size": pulumi.Output.from_input(0),
                "capacity_type": "SPOT",
                "disk_size_gb": 128,
            },
        )
        pulumi.export("nodeGroupName", a100.node_group_name)
        pulumi.export("asg", a100.auto_scaling_group_name)

    return _run(program, project="anylang", mocks=DescribedEks())


def test_string_mode_registers_an_eks_node_group_as_the_components_child(string_run) -> None:
    assert not [r for r in string_run.resources if r.type.startswith("eks:")]  # no pulumi-eks component at all
    for name in ("a100", "block", "spot"):
        component = _named(string_run, name)
        assert component.type == "gpupools:index:EksGpuNodeGroup" and component.parent is None
        group = _named(string_run, f"{name}-ng")
        assert group.type == NODE_GROUP and group.parent == component.urn


def test_string_mode_inputs_in_eks_wire_names(string_run) -> None:
    inputs = _named(string_run, "a100-ng").inputs
    assert (inputs["clusterName"], inputs["nodeRoleArn"], inputs["subnetIds"]) == (CLUSTER, ROLE_ARN, [SUBNET_A])
    assert inputs["nodeGroupName"] == "a100" and inputs["instanceTypes"] == ["p4d.24xlarge"]
    assert inputs["amiType"] == "AL2023_x86_64_NVIDIA"
    assert inputs["scalingConfig"] == {"desiredSize": 2, "minSize": 0, "maxSize": 4}
    # CreateNodegroup spells taint effects NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE.
    assert inputs["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert inputs["labels"] == {"nvidia.com/mig.config": "all-balanced"}
    assert inputs["tags"] == {"team": "ml"}
    # A reservation and EFA go through a launch template, which then carries the disk (EKS refuses diskSize).
    assert inputs["launchTemplate"]["id"] == "a100-lt-id" and "diskSize" not in inputs
    assert "capacityType" not in inputs  # ON_DEMAND, EKS's default
    assert not [r for r in string_run.resources if r.name == "a100-nodes-role"]  # the given role is used


def test_string_mode_efa_uses_the_looked_up_cluster_network(string_run) -> None:
    lookups = [c for c in string_run.calls if c.token == "aws:eks/getCluster:getCluster"]
    assert [c.args["name"] for c in lookups] == [CLUSTER]  # only the EFA group needs the cluster's network
    assert _named(string_run, "a100-efa").inputs["vpcId"] == VPC
    interfaces = _named(string_run, "a100-lt").inputs["networkInterfaces"]
    assert len(interfaces) == 4
    for interface in interfaces:  # the template's groups replace EKS's, so the cluster security group is named
        assert set(interface["securityGroups"]) == {CLUSTER_SG, "a100-efa-id"}


def test_string_mode_capacity_block_and_spot(string_run) -> None:
    block = _named(string_run, "block-ng").inputs
    assert block["capacityType"] == "CAPACITY_BLOCK" and "instanceTypes" not in block
    assert block["launchTemplate"]["id"] == "block-lt-id"
    template = _named(string_run, "block-lt").inputs
    assert template["instanceType"] == "p5.48xlarge"
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": CAPACITY_BLOCK}
    }
    spot = _named(string_run, "spot-ng").inputs
    assert (spot["clusterName"], spot["subnetIds"], spot["capacityType"]) == (CLUSTER, [SUBNET_B], "SPOT")
    assert spot["diskSize"] == 128 and "launchTemplate" not in spot
    # desired_size was an output: maxSize still becomes at least 1, as EKS requires.
    assert spot["scalingConfig"] == {"desiredSize": 0, "minSize": 0, "maxSize": 1}


def test_string_mode_without_a_role_gets_its_own(string_run) -> None:
    role = _named(string_run, "spot-nodes-role")
    assert role.parent == _named(string_run, "spot").urn
    assert json.loads(role.inputs["assumeRolePolicy"])["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com"}
    attachments = [r for r in string_run.resources if r.parent == role.urn]
    assert len(attachments) == 4
    # The node group gets that role's ARN (the mocks name an ARN after its resource).
    assert _named(string_run, "spot-ng").inputs["nodeRoleArn"].endswith(":role/" + role.name)  # IAM: role/<name>


def test_string_mode_tags_the_node_groups_auto_scaling_group(string_run) -> None:
    tags = [r for r in string_run.resources if r.type == "aws:autoscaling/tag:Tag"]
    assert {t.parent for t in tags} == {_named(string_run, "a100").urn}
    assert {t.inputs["autoscalingGroupName"] for t in tags} == {_asg_name("a100")}
    assert {t.inputs["tag"]["key"]: t.inputs["tag"]["value"] for t in tags} == AUTOSCALER_TAGS
    assert {t.inputs["tag"]["propagateAtLaunch"] for t in tags} == {False}
    assert string_run.outputs == {"nodeGroupName": "a100", "asg": _asg_name("a100")}


def test_pulumi_eks_mode_takes_a_role_arn() -> None:
    from gpupools.aws import EksCluster, EksGpuNodeGroup

    def program():
        cluster = EksCluster(CLUSTER, {"name": CLUSTER})
        EksGpuNodeGroup(
            "a100",
            {
                "cluster": cluster.cluster,
                "node_role_arn": ROLE_ARN,
                "node_group_name": "a100",
                "instance_type": "p4d.24xlarge",
                "desired_size": 1,
            },
        )

    run = _run(program, project="anylang", mocks=DescribedEks())
    group = _named(run, "a100-ng")
    assert group.type == "eks:index:ManagedNodeGroup"
    assert group.inputs["nodeRoleArn"] == ROLE_ARN and "nodeRole" not in group.inputs  # exclusive in pulumi-eks
    assert not [r for r in run.resources if r.name == "a100-nodes-role"]


# --- EksCluster's links, wired as strings -----------------------------------------------------------------------


def test_existing_cluster_links_wire_a_node_group_and_the_autoscaler() -> None:
    from gpupools.aws import EksCluster, EksGpuNodeGroup
    from gpupools.kubernetes.cluster_autoscaler import ClusterAutoscaler

    def program():
        cluster = EksCluster("shared", {"name": CLUSTER, "create": False})
        EksGpuNodeGroup(
            "a100",
            {
                "cluster_name": cluster.cluster_name,
                "subnet_ids": cluster.subnet_ids,
                "node_group_name": "a100",
                "instance_type": "p4d.24xlarge",
                "desired_size": 1,
            },
        )
        ClusterAutoscaler(
            "ca",
            {
                "cluster_name": cluster.cluster_name,
                "region": "us-east-1",
                "oidc_provider_arn": cluster.oidc_provider_arn,
                "oidc_provider_url": cluster.oidc_provider_url,
            },
        )
        for key in (
            "node_role_arn",
            "subnet_ids",
            "oidc_provider_arn",
            "oidc_provider_url",
            "cluster_security_group_id",
        ):
            pulumi.export(key, getattr(cluster, key))

    run = _run(program, project="anylang", mocks=DescribedEks())
    assert run.outputs == {
        "node_role_arn": None,
        "subnet_ids": [SUBNET_A, SUBNET_B],
        "oidc_provider_arn": OIDC_ARN,
        "oidc_provider_url": ISSUER,
        "cluster_security_group_id": CLUSTER_SG,
    }
    group = _named(run, "a100-ng").inputs
    assert (group["clusterName"], group["subnetIds"]) == (CLUSTER, [SUBNET_A, SUBNET_B])
    trust = json.loads(
        next(r for r in run.resources if r.type == "aws:iam/role:Role" and r.name.startswith("ca")).inputs[
            "assumeRolePolicy"
        ]
    )
    assert trust["Statement"][0]["Principal"] == {"Federated": OIDC_ARN}


def test_created_cluster_outputs_its_node_role_and_oidc_provider() -> None:
    from gpupools.aws import EksCluster

    def program():
        cluster = EksCluster(CLUSTER, {"name": CLUSTER})
        for key in ("node_role_arn", "oidc_provider_arn", "oidc_provider_url"):
            pulumi.export(key, getattr(cluster, key))

    run = _run(program, project="anylang", mocks=DescribedEks())
    role = _named(run, f"{CLUSTER}-nodes-role")
    assert run.outputs["node_role_arn"].endswith(":role/" + role.name)  # the role the cluster admits (instanceRoles)
    assert run.outputs["oidc_provider_arn"] == OIDC_ARN  # pulumi-eks's, from createOidcProvider
    assert run.outputs["oidc_provider_url"] == ISSUER.removeprefix("https://")


# --- The package schema other languages get ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    from gpupools.provider import package_schema

    return package_schema()


def test_schema_node_group_takes_its_links_as_string_inputs(schema: dict[str, Any]) -> None:
    group = schema["resources"]["gpupools:index:EksGpuNodeGroup"]
    props = group["inputProperties"]
    for name in ("clusterName", "nodeRoleArn"):
        assert props[name]["type"] == "string" and not props[name].get("plain"), name
        assert props[name].get("description"), name
    subnets = props["subnetIds"]
    assert subnets["type"] == "array" and subnets["items"]["type"] == "string"
    assert not subnets.get("plain") and not subnets["items"].get("plain")
    assert not props["desiredSize"].get("plain")  # a count another resource decides
    # No resource reference at all: the Python-only cluster/node_role objects are left out of the schema.
    assert not {name for name, prop in props.items() if "/resources/" in prop.get("$ref", "")}
    assert {"nodeGroupName", "instanceType", "desiredSize"} <= set(group["requiredInputs"])


def test_schema_cluster_outputs_the_links(schema: dict[str, Any]) -> None:
    outputs = schema["resources"]["gpupools:index:EksCluster"]["properties"]
    for name in ("nodeRoleArn", "oidcProviderArn", "oidcProviderUrl", "clusterSecurityGroupId", "clusterName"):
        assert outputs[name]["type"] == "string" and outputs[name].get("description"), name
    assert outputs["subnetIds"]["type"] == "array" and outputs["subnetIds"]["items"]["type"] == "string"
