"""AWS (EKS) as a ``Cloud``: the facts that differ from other clouds. Sources: ``docs/sources.md``."""

from __future__ import annotations

from .regions import AWS_READ_ON, AWS_SOURCE, Places, aws_regions
from .cloud import Cloud, Extra, FixedFields, KubernetesOffer, PoolNaming, SizeNaming, TagRules
from .fixed_fields import EKS_NODE_GROUP
from .provisioners import KARPENTER, NODE_GROUP
from .kubernetes_versions import EKS_EXTENDED_FEE, EKS_MINORS
from .names import AWS_RESERVED_TAG_PREFIX, AWS_TAG_KEY_MAX, AWS_TAG_VALUE_MAX, EC2_INSTANCE_TYPE, POOL_NAME_MAX


def _tag_key_problems(key: str) -> list[str]:
    if key.lower().startswith(AWS_RESERVED_TAG_PREFIX):
        return [f"key starts with '{AWS_RESERVED_TAG_PREFIX}', which AWS reserves"]
    return []


AWS = Cloud(
    name="aws",
    display_name="AWS",
    region_field="region",
    provider_region_key="aws:region",
    pool_keys=("amiType", "capacityType", "capacityReservation", "subnetIds", "efa"),
    cluster_autoscaler_chart=True,  # EKS has no managed autoscaler: gpupools installs cluster-autoscaler
    node_provisioners=(NODE_GROUP.name, KARPENTER.name),  # Karpenter's AWS provider (aws/karpenter-provider-aws)
    spot_price_note="EC2 Spot prices move with supply and demand and are not in the price list",
    facets=(
        # EKS accepts 63, but the node group component takes names that also fit every Kubernetes name derived
        # from a pool (names.POOL_NAME_MAX); a separator reads better.
        PoolNaming(max_length=POOL_NAME_MAX, separator="-"),
        # EC2 names carry no prefix: a size that is no other cloud's is taken for an instance type.
        SizeNaming(
            "",
            EC2_INSTANCE_TYPE,
            "an EC2 instance type, <family>.<size> in lowercase ASCII letters, digits and '-', e.g. p4d.24xlarge",
        ),
        TagRules(AWS_TAG_KEY_MAX, AWS_TAG_VALUE_MAX, _tag_key_problems),
        KubernetesOffer(
            "EKS",
            EKS_MINORS,
            "extended support",
            long_term_fee=EKS_EXTENDED_FEE,
            long_term_note="EKS bills extended support at $0.60 per cluster-hour instead of $0.10 (EKS pricing)",
            confirm_command="aws eks describe-cluster-versions --region {region}",
        ),
        Places(aws_regions(), AWS_SOURCE, AWS_READ_ON),
        FixedFields(tuple(EKS_NODE_GROUP)),
        Extra("aws", "the AWS SDKs", ("pulumi_aws", "pulumi_eks")),
    ),
)
