"""``gpupools:cluster``: the cluster to create or use, its system pool and the cluster autoscaler gpupools installs.

Each field's ``description`` is the one text of the stack file's JSON Schema (``gpupools schema``) and of the
configuration reference page (``gpupools.reference_docs``); rules that need the catalog live in ``gpupools.resolve``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from ..catalog.chart_refs import (
    KARPENTER,
    CLUSTER_AUTOSCALER,
    CLUSTER_AUTOSCALER_NAMESPACE,
    DEFAULT_EXPANDER,
    DIGITS_VERSION,
)
from ..catalog.clouds import SYSTEM_POOL_COUNT
from ..catalog.names import DNS1123_LABEL
from .base import Strict, expander_problem


class SystemPool(Strict):
    """The small CPU pool that runs system pods (AKS system pool, EKS managed node group)."""

    size: str = Field(min_length=1, description="VM size or instance type, e.g. `Standard_D4s_v5` or `m6i.large`.")
    count: int = Field(  # AKS system pools and EKS node groups: our bound
        default=SYSTEM_POOL_COUNT, ge=1, le=100, description="Nodes of the system pool."
    )


# catalog.chart_refs lists them (CLUSTER_AUTOSCALER_EXPANDERS); spelled out so type checkers read it, and
# tests/config/test_models.py keeps the two equal.
Expander = Literal["least-waste", "most-pods", "random", "priority"]


class ClusterAutoscalerConfig(Strict):
    """The open-source cluster autoscaler, installed by gpupools on EKS (AKS runs its own, managed one)."""

    install: bool = Field(
        default=False,
        description="Install the pinned `cluster-autoscaler` chart with auto-discovery for this cluster and an IRSA "
        "role of least privilege.",
    )
    version: str = Field(
        default=CLUSTER_AUTOSCALER.default_version,
        pattern=f"^{DIGITS_VERSION.pattern}$",
        description="Exact `cluster-autoscaler` chart version.",
    )
    namespace: str = Field(default=CLUSTER_AUTOSCALER_NAMESPACE, description="Namespace of the release.")
    expander: Expander = Field(
        default=DEFAULT_EXPANDER,
        description="How the autoscaler picks a node group to grow: `least-waste` prefers the one that leaves the "
        "fewest GPUs idle; `priority` reads `priorities`.",
    )
    # The cluster-autoscaler-priority-expander ConfigMap (expander/priority/readme.md).
    priorities: dict[str, list[str]] = Field(
        default_factory=dict,
        description='Only with `expander: priority`: priority (a whole number written as text, "10") to node group '
        'name regexes, e.g. `{"10": [".*p4d.*"]}`.',
    )
    # Unset leaves the autoscaler's defaults (0.5 each, flags.go).
    scale_down_utilization_threshold: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="CPU/memory utilization under which a node may be removed (autoscaler default 0.5).",
    )
    scale_down_gpu_utilization_threshold: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="GPU utilization under which a GPU node may be removed (autoscaler default 0.5).",
    )

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, namespace: str) -> str:
        if not DNS1123_LABEL.fullmatch(namespace):
            raise ValueError(
                f"'{namespace}' is not a Kubernetes namespace name; allowed: at most 63 lowercase "
                "letters, digits and '-', starting and ending with a letter or digit"
            )
        return namespace

    @model_validator(mode="after")
    def _priorities(self) -> "ClusterAutoscalerConfig":
        problem = expander_problem(self.expander, self.priorities)
        if problem:
            raise ValueError(problem)
        return self  # keys and patterns: resolve.autoscaler_version_rule.priorities_problems


class KarpenterConfig(Strict):
    """Karpenter in the cluster (aws): installed by this stack, or already run by the cluster's owner."""

    install: bool = Field(
        default=False,
        description="Install the pinned Karpenter chart (with its CRDs, on the system pool), its controller role "
        "(EKS Pod Identity), the node role with its `EC2_LINUX` access entry, and the interruption queue; a "
        "created cluster only.",
    )
    present: bool = Field(
        default=False,
        description="`create: false`: the existing cluster runs Karpenter (its platform stack's `karpenter` output "
        "is true), so this stack adds only NodePools, EC2NodeClasses and NodeOverlays.",
    )
    version: str = Field(
        default=KARPENTER.default_version,
        pattern=f"^{DIGITS_VERSION.pattern}$",
        description="Exact Karpenter chart version.",
    )


class ClusterConfig(Strict):
    """The cluster to create, or to use when `create` is false."""

    # Name, resource group, location and region syntax are cloud rules (catalog/names.py), checked in gpupools.resolve.
    name: str = Field(
        min_length=1,
        description="Cluster name. azure: also the `dnsPrefix` (letters, digits, `-`, at most 54); aws: 1..100 "
        "letters, digits, `-`, `_`.",
    )
    create: bool = Field(
        default=True,
        description="`false` adds pools to an existing cluster of that name, which another stack owns (AKS or "
        "EKS; docs/team-stacks.md).",
    )
    resource_group: str | None = Field(
        default=None,
        min_length=1,
        description="azure, required: the cluster's resource group (created with the cluster), by Azure's name rules.",
    )
    location: str | None = Field(
        default=None,
        min_length=1,
        description="azure, required when `create`: the Azure region (location). `azure-native:location`, where the "
        "stack file sets it, must be the same.",
    )
    region: str | None = Field(
        default=None,
        min_length=1,
        description="aws, required: the AWS region. `aws:region`, where the stack file sets it, must be the same.",
    )
    # Unset: filled by StackConfig with the cloud's default minor on the plan's date (default_kubernetes_version);
    # "" only when no minor is in standard support that day, which resolve.versions refuses.
    kubernetes_version: str = Field(
        default="",
        min_length=1,
        description="Kubernetes minor version (ASCII digits, e.g. `1.35`) the cloud offers on the plan's date. "
        "Default: the newest minor in standard support but one on that date. With `autoscaler.install` (aws) it "
        "also picks the cluster-autoscaler image of the same minor (1.29..1.36; others are refused, since upstream "
        "does no cross-version testing).",
    )
    long_term_support: bool = Field(
        default=False,
        description="azure: AKS long-term support on a created cluster (the ManagedCluster gets `sku: {name: Base, "
        "tier: Premium}` and `supportPlan: AKSLongTermSupport`); required for a minor past community support, "
        "counted in the cost; refused on aws.",
    )
    system_pool: SystemPool | None = Field(
        default=None, description="CPU pool for system pods; required when `create`."
    )
    subnet_ids: list[str] = Field(
        default_factory=list,
        description="aws: subnets for the cluster and node groups (the default VPC when empty; on an existing "
        "cluster, its node groups' subnets, by default the cluster's own), each at most once.",
    )
    vpc_id: str | None = Field(
        default=None,
        description="aws, created cluster: the VPC of `subnetIds`, required with them and only with them "
        "(pulumi-eks would otherwise put the cluster security group in the default VPC); refused on an existing "
        "cluster, whose VPC is read from EKS.",
    )
    node_role_arn: str | None = Field(
        default=None,
        min_length=1,
        description="aws, `create: false`: the IAM role ARN of the node role the existing cluster admits (its "
        "platform stack's `nodeRoleArn` output); unset, each GPU node group gets its own role, which EKS admits "
        "through the access entry it creates for a managed node group.",
    )
    autoscaler: ClusterAutoscalerConfig = Field(
        default_factory=ClusterAutoscalerConfig,
        description="aws: install the cluster autoscaler; refused on azure, where AKS's managed autoscaler runs.",
    )
    karpenter: KarpenterConfig = Field(
        default_factory=KarpenterConfig,
        description="aws: Karpenter, for pools with `provisioner: karpenter`; refused on azure.",
    )
