"""The IAM role the cluster autoscaler's service account assumes (IRSA), with a least-privilege policy.

The actions are those of the cluster-autoscaler AWS README's recommended policy (auto-discovery needs
the describe actions on every group). The two that change capacity, ``SetDesiredCapacity`` and
``TerminateInstanceInAutoScalingGroup``, are limited to this cluster's groups by the condition key
``autoscaling:ResourceTag/k8s.io/cluster-autoscaler/<cluster>`` (AWS Auto Scaling "Tags for security"; the
README asks to restrict them "by either specifying Auto Scaling Group ARNs ... or using tag based
conditionals"). ``eks:DescribeNodegroup`` is limited to this cluster's node groups.
The policy builders are pure; ``cluster_autoscaler_role`` registers the role and its inline policy.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws

DESCRIBE_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations",
    "autoscaling:DescribeScalingActivities",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplateVersions",
    "ec2:GetInstanceTypesFromInstanceRequirements",
)
SCALING_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")
NODEGROUP_ACTION = "eks:DescribeNodegroup"


def oidc_issuer(provider_url: str) -> str:
    """The issuer as IAM condition keys spell it: the provider URL without ``https://``."""
    return provider_url.removeprefix("https://").rstrip("/")


def trust_policy(
    oidc_provider_arn: str, oidc_provider_url: str, namespace: str, service_account: str
) -> dict[str, Any]:
    """Only the autoscaler's service account, through the cluster's OIDC provider, may assume the role (EKS IRSA)."""
    issuer = oidc_issuer(oidc_provider_url)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Federated": oidc_provider_arn},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {
                    "StringEquals": {
                        f"{issuer}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                        f"{issuer}:aud": "sts.amazonaws.com",
                    }
                },
            }
        ],
    }


def autoscaler_policy(cluster: str, region: str, oidc_provider_arn: str) -> dict[str, Any]:
    """Describe anywhere; scale only groups tagged for ``cluster``; read only ``cluster``'s node groups.

    The partition and account come from the OIDC provider's ARN (``arn:<partition>:iam::<account>:...``).
    """
    partition, account = _partition_and_account(oidc_provider_arn)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "Describe", "Effect": "Allow", "Action": list(DESCRIBE_ACTIONS), "Resource": "*"},
            {
                "Sid": "ScaleThisClustersGroups",
                "Effect": "Allow",
                "Action": list(SCALING_ACTIONS),
                "Resource": "*",
                "Condition": {
                    "StringEquals": {f"autoscaling:ResourceTag/k8s.io/cluster-autoscaler/{cluster}": "owned"}
                },
            },
            {
                "Sid": "ReadThisClustersNodeGroups",
                "Effect": "Allow",
                "Action": NODEGROUP_ACTION,
                "Resource": f"arn:{partition}:eks:{region}:{account}:nodegroup/{cluster}/*/*",
            },
        ],
    }


def _partition_and_account(arn: str) -> tuple[str, str]:
    parts = arn.split(":")
    if len(parts) < 6 or parts[0] != "arn" or parts[2] != "iam" or not parts[4].isdigit():
        raise ValueError(f"{arn!r} is not an IAM OIDC provider ARN (arn:aws:iam::<account>:oidc-provider/<issuer>)")
    return parts[1], parts[4]


def cluster_autoscaler_role(
    name: str,
    *,
    cluster: pulumi.Input[str],
    region: pulumi.Input[str],
    oidc_provider_arn: pulumi.Input[str],
    oidc_provider_url: pulumi.Input[str],
    namespace: str,
    service_account: str,
    parent: pulumi.Resource,
    tags: dict[str, str] | None = None,
) -> aws.iam.Role:
    """The IRSA role and its inline policy, children of ``parent``."""
    assume = pulumi.Output.all(oidc_provider_arn, oidc_provider_url).apply(
        lambda parts: json.dumps(trust_policy(parts[0], parts[1], namespace, service_account))
    )
    role = aws.iam.Role(
        f"{name}-role", assume_role_policy=assume, tags=tags or {}, opts=pulumi.ResourceOptions(parent=parent)
    )
    policy = pulumi.Output.all(cluster, region, oidc_provider_arn).apply(
        lambda parts: json.dumps(autoscaler_policy(parts[0], parts[1], parts[2]))
    )
    aws.iam.RolePolicy(f"{name}-policy", role=role.name, policy=policy, opts=pulumi.ResourceOptions(parent=role))
    return role
