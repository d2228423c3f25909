"""EKS with ``cluster.create: false`` (issue 28): GPU node groups on a cluster another stack owns. What only a created
cluster uses (system pool, VPC, the cluster autoscaler) is refused rather than ignored; the node role the cluster
admits (``nodeRoleArn``) is taken only there, and only as an IAM role ARN."""

from __future__ import annotations

import copy

import pytest

from gpupools.resolve.stack_loader import load_stack

from support.base_configs import AWS, AZURE, config, messages_at

ROLE = "arn:aws:iam::123456789012:role/shared-eks-nodes"


def existing(**cluster) -> dict:
    raw = copy.deepcopy(AWS)
    raw["gpupools:cluster"] = {"name": "shared-eks", "region": "us-east-1", "create": False, **cluster}
    return raw


@pytest.mark.parametrize(
    "cluster",
    [
        {},
        {"nodeRoleArn": ROLE},
        {"nodeRoleArn": "arn:aws:iam::123456789012:role/platform/gpu/nodes"},  # a role with a path
        {"subnetIds": ["subnet-0123456789abcdef0"], "nodeRoleArn": ROLE},  # no vpcId needed: EKS knows it
    ],
)
def test_an_existing_eks_cluster_takes_gpu_node_groups(cluster) -> None:
    stack = load_stack(existing(**cluster))
    assert not stack.config.cluster.create
    assert [pool.name for pool in stack.pools] == ["p4d"]


@pytest.mark.parametrize(
    ("key", "value", "needle"),
    [
        ("systemPool", {"size": "m6i.large"}, "the existing cluster has its own"),
        ("vpcId", "vpc-0123456789abcdef0", "read from EKS"),
    ],
)
def test_what_only_a_created_cluster_uses_is_refused(key, value, needle) -> None:
    extra = {"subnetIds": ["subnet-0123456789abcdef0"]} if key == "vpcId" else {}
    (message,) = messages_at(existing(**{key: value}, **extra), f"gpupools:cluster.{key}")
    assert needle in message and "a cluster gpupools creates" in message


def test_the_cluster_autoscaler_is_the_owner_s_to_install() -> None:
    (message,) = messages_at(existing(autoscaler={"install": True}), "gpupools:cluster.autoscaler.install")
    assert "one cluster autoscaler serves a whole cluster" in message


@pytest.mark.parametrize(
    "arn",
    [
        "shared-eks-nodes",  # a name, not an ARN
        "arn:aws:iam::1234:role/short-account",
        "arn:aws:iam::123456789012:user/not-a-role",
        "arn:aws:eks:us-east-1:123456789012:cluster/shared-eks",
    ],
)
def test_a_node_role_that_is_no_iam_role_arn_is_refused(arn) -> None:
    (message,) = messages_at(existing(nodeRoleArn=arn), "gpupools:cluster.nodeRoleArn")
    assert "is not an IAM role ARN" in message


def test_a_created_cluster_makes_its_own_node_role() -> None:
    raw = config(AWS, cluster={"nodeRoleArn": ROLE})
    (message,) = messages_at(raw, "gpupools:cluster.nodeRoleArn")
    assert "create: false" in message


def test_node_role_is_for_aws() -> None:
    raw = config(AZURE, cluster={"nodeRoleArn": ROLE})
    (message,) = messages_at(raw, "gpupools:cluster.nodeRoleArn")
    assert message.startswith("is for aws")


def test_an_autoscaled_pool_points_at_the_owner_s_autoscaler() -> None:
    raw = existing()
    raw["gpupools:gpuPools"][0]["autoscaling"] = {"minCount": 1, "maxCount": 2}
    warnings = [w for w in load_stack(raw).warnings if "autoscaling 1..2" in w]
    assert len(warnings) == 1
    assert "the stack owning the existing cluster must run" in warnings[0]
    assert "set gpupools:cluster.autoscaler.install true" not in warnings[0]


def test_efa_needs_no_vpc_id_on_an_existing_cluster() -> None:
    """A created cluster's EFA pools need its own VPC (the default VPC's public subnets strand them); an existing
    cluster's network is its owner's."""
    raw = existing()
    raw["gpupools:gpuPools"][0].update({"efa": True, "subnetIds": ["subnet-0123456789abcdef0"]})
    (pool,) = load_stack(raw).pools
    assert pool.config.efa
    created = config(AWS, {"efa": True, "subnetIds": ["subnet-0123456789abcdef0"]})
    assert messages_at(created, "gpupools:gpuPools[0].efa")
