"""Karpenter's IAM: the controller policy, its Pod Identity trust, and the node role's trust and managed policies.

Written from the Karpenter v1.14 getting-started ``cloudformation.yaml`` (read 2026-11-28 at 1d927085dd81): the
node lifecycle, IAM integration, EKS integration, interruption and resource discovery policies, one statement per
``Sid`` with the same actions, resources and conditions. Launching, tagging and deleting are scoped to resources
tagged ``kubernetes.io/cluster/<cluster>: owned`` (and a ``karpenter.sh/nodepool``), so the controller touches
only this cluster's instances; tests compare every statement's actions with the CloudFormation's. The zonal shift
policy is left out: gpupools leaves ``settings.enableZonalShift`` off. Pure; ``kubernetes/karpenter`` registers.
"""

from __future__ import annotations

from typing import Any

# The node role's managed policies (cloudformation.yaml KarpenterNodeRole.ManagedPolicyArns), by partition.
NODE_POLICY_NAMES = (
    "AmazonEKS_CNI_Policy",
    "AmazonEKSWorkerNodePolicy",
    "AmazonEC2ContainerRegistryPullOnly",
    "AmazonSSMManagedInstanceCore",
)
# EKS Pod Identity's service principal and the actions its agent needs (EKS "Create an IAM role for Pod Identity").
POD_IDENTITY_PRINCIPAL = "pods.eks.amazonaws.com"
POD_IDENTITY_ACTIONS = ["sts:AssumeRole", "sts:TagSession"]
LAUNCH_RESOURCES = ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")
READ_ACTIONS = (
    "ec2:DescribeCapacityReservations",
    "ec2:DescribeImages",
    "ec2:DescribeInstances",
    "ec2:DescribeInstanceStatus",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplates",
    "ec2:DescribePlacementGroups",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeSubnets",
)


def node_policy_arns(partition: str) -> list[str]:
    return [f"arn:{partition}:iam::aws:policy/{name}" for name in NODE_POLICY_NAMES]


def pod_identity_trust() -> dict[str, Any]:
    """Only EKS Pod Identity may assume the controller role; the association names the service account."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": POD_IDENTITY_PRINCIPAL}, "Action": POD_IDENTITY_ACTIONS}
        ],
    }


def controller_policy(
    cluster: str, region: str, partition: str, account: str, node_role_arn: str, queue_arn: str
) -> dict[str, Any]:
    """The controller's permissions, each statement as cloudformation.yaml has it for ``cluster``."""
    ec2 = f"arn:{partition}:ec2:{region}"
    owned = {f"aws:ResourceTag/kubernetes.io/cluster/{cluster}": "owned"}
    request_owned = {
        f"aws:RequestTag/kubernetes.io/cluster/{cluster}": "owned",
        "aws:RequestTag/eks:eks-cluster-name": cluster,
    }
    in_nodepool = {"aws:ResourceTag/karpenter.sh/nodepool": "*"}
    request_nodepool = {"aws:RequestTag/karpenter.sh/nodepool": "*"}
    launched = [f"{ec2}:*:{kind}/*" for kind in LAUNCH_RESOURCES]
    profiles = f"arn:{partition}:iam::{account}:instance-profile/*"
    region_tag = "topology.kubernetes.io/region"
    nodeclass_tag = "karpenter.k8s.aws/ec2nodeclass"
    cluster_arn = f"arn:{partition}:eks:{region}:{account}:cluster/{cluster}"
    statements = [
        _allow(
            "AllowScopedEC2InstanceAccessActions",
            ["ec2:RunInstances", "ec2:CreateFleet"],
            [
                f"{ec2}::image/*",
                f"{ec2}::snapshot/*",
                f"{ec2}:*:security-group/*",
                f"{ec2}:*:subnet/*",
                f"{ec2}:*:capacity-reservation/*",
                f"{ec2}:*:placement-group/*",
            ],
        ),
        _allow(
            "AllowScopedEC2LaunchTemplateAccessActions",
            ["ec2:RunInstances", "ec2:CreateFleet"],
            f"{ec2}:*:launch-template/*",
            {"StringEquals": owned, "StringLike": in_nodepool},
        ),
        _allow(
            "AllowScopedEC2InstanceActionsWithTags",
            ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            launched,
            {"StringEquals": request_owned, "StringLike": request_nodepool},
        ),
        _allow(
            "AllowScopedResourceCreationTagging",
            "ec2:CreateTags",
            launched,
            {
                "StringEquals": {
                    **request_owned,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                "StringLike": request_nodepool,
            },
        ),
        _allow(
            "AllowScopedResourceTagging",
            "ec2:CreateTags",
            f"{ec2}:*:instance/*",
            {
                "StringEquals": owned,
                "StringLike": in_nodepool,
                "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster},
                "ForAllValues:StringEquals": {
                    "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                },
            },
        ),
        _allow(
            "AllowScopedDeletion",
            ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            [f"{ec2}:*:instance/*", f"{ec2}:*:launch-template/*"],
            {"StringEquals": owned, "StringLike": in_nodepool},
        ),
        _allow(
            "AllowPassingInstanceRole",
            "iam:PassRole",
            node_role_arn,
            {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
        ),
        _allow(
            "AllowScopedInstanceProfileCreationActions",
            ["iam:CreateInstanceProfile"],
            profiles,
            {
                "StringEquals": {**request_owned, f"aws:RequestTag/{region_tag}": region},
                "StringLike": {f"aws:RequestTag/{nodeclass_tag}": "*"},
            },
        ),
        _allow(
            "AllowScopedInstanceProfileTagActions",
            ["iam:TagInstanceProfile"],
            profiles,
            {
                "StringEquals": {
                    **owned,
                    f"aws:ResourceTag/{region_tag}": region,
                    **request_owned,
                    f"aws:RequestTag/{region_tag}": region,
                },
                "StringLike": {f"aws:ResourceTag/{nodeclass_tag}": "*", f"aws:RequestTag/{nodeclass_tag}": "*"},
            },
        ),
        _allow(
            "AllowScopedInstanceProfileActions",
            ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
            profiles,
            {
                "StringEquals": {**owned, f"aws:ResourceTag/{region_tag}": region},
                "StringLike": {f"aws:ResourceTag/{nodeclass_tag}": "*"},
            },
        ),
        _allow("AllowAPIServerEndpointDiscovery", "eks:DescribeCluster", cluster_arn),
        _allow(
            "AllowInterruptionQueueActions", ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"], queue_arn
        ),
        _allow(
            "AllowRegionalReadActions",
            list(READ_ACTIONS),
            "*",
            {"StringEquals": {"aws:RequestedRegion": region}},
        ),
        _allow("AllowSSMReadActions", "ssm:GetParameter", f"arn:{partition}:ssm:{region}::parameter/aws/service/*"),
        _allow("AllowPricingReadActions", "pricing:GetProducts", "*"),
        _allow("AllowUnscopedInstanceProfileListAction", "iam:ListInstanceProfiles", "*"),
        _allow("AllowInstanceProfileReadActions", "iam:GetInstanceProfile", profiles),
    ]
    return {"Version": "2012-10-17", "Statement": statements}


def _allow(
    sid: str, actions: str | list[str], resources: str | list[str], condition: dict[str, Any] | None = None
) -> dict[str, Any]:
    statement: dict[str, Any] = {"Sid": sid, "Effect": "Allow", "Resource": resources, "Action": actions}
    if condition:
        statement["Condition"] = condition
    return statement


def arn_parts(arn: str) -> tuple[str, str]:
    """The partition and account of an ARN (``arn:<partition>:<service>:<region>:<account>:...``)."""
    parts = arn.split(":")
    if len(parts) < 6 or parts[0] != "arn" or not parts[4].isdigit():
        raise ValueError(f"{arn[:120]!r} is not an ARN with an account (arn:<partition>:<service>::<account>:...)")
    return parts[1], parts[4]
