"""AWS's platform facet: ``platform/aws.build``, imported (with the AWS SDKs) only when it runs."""

from __future__ import annotations

from typing import Any

import pulumi

from ..catalog.cloud_registry import cloud
from ..domain.stack import Stack
from .builders import PlatformBuilder
from .inputs import Deferred


def _build(stack: Stack, deferred: Deferred, prefix: str, opts: pulumi.ResourceOptions) -> tuple[Any, list[Any]]:
    from . import aws

    cluster, groups = aws.build(stack, deferred, prefix, opts)
    return cluster, list(groups)


# What a team stack reads (StackReference) to add its GPU node groups to this cluster.
OUTPUTS = (
    ("subnetIds", "subnet_ids"),
    ("vpcId", "vpc_id"),
    ("nodeRoleArn", "node_role_arn"),
    ("clusterSecurityGroupId", "cluster_security_group_id"),
    ("karpenter", "karpenter"),
)
cloud("aws").attach(PlatformBuilder(_build, outputs=OUTPUTS))
