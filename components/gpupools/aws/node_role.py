"""The IAM role EKS worker nodes assume, with the managed policies a GPU node needs."""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws

NODE_POLICIES = {
    "worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
    "cni": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    "ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
    "ssm": "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
}
EC2_ASSUME_ROLE = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
)


def node_role(name: str, parent: pulumi.Resource, tags: pulumi.Input[dict[str, str]] | None = None) -> aws.iam.Role:
    """A role for a node group, children of ``parent`` so they show under it in the plan and in ``pulumi up``."""
    role = aws.iam.Role(
        f"{name}-role", assume_role_policy=EC2_ASSUME_ROLE, tags=tags or {}, opts=pulumi.ResourceOptions(parent=parent)
    )
    for key, arn in NODE_POLICIES.items():
        aws.iam.RolePolicyAttachment(
            f"{name}-{key}", role=role.name, policy_arn=arn, opts=pulumi.ResourceOptions(parent=role)
        )
    return role
