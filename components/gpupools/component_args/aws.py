"""Arguments of the EKS components (``EksCluster``, ``EksGpuNodeGroup``)."""

from __future__ import annotations

from typing import Annotated, Any, Optional, TypeAlias

from pydantic import Field, model_validator

from ..domain.node_templates import AWS_TEMPLATE_TAG_BUDGET, EKS_OWN_ASG_TAGS
from ..catalog import clouds, names
from ..config import models as config
from ..catalog.instances import EFA_INTERFACES
from ..catalog.labels import GPUPOOLS_NODE_LABELS, MIG_CONFIG_LABEL
from ..resolve import aws_rules
from ..resolve.mig_rules import mig_config_label_problem
from ..resolve.pool_rules import duplicate_taint_problems, reserved_label_problem
from ..resolve.versions import kubernetes_version_problem
from ..catalog.clock import plan_date
from .fields import (
    Count,
    Rule,
    TaintEffect,
    Tags,
    _Args,
    _checked,
    _input,
    _labels_but_ours,
    _like,
    _matching,
    _one_of,
    _pulumi_object,
    _size,
    _tag_problems,
    is_deferred,
)


_CLUSTER_NAME = "1..100 letters, digits, '-' and '_', starting with a letter or digit"


class EksTaintModel(_Args):
    key: Annotated[str, Rule(_input(_checked(names.label_key_problem)))]
    value: Annotated[str, Rule(_input(_checked(names.label_value_problem)))]
    effect: Annotated[TaintEffect, Rule(_input(TaintEffect))]


class EksClusterArgsModel(_Args):
    name: Annotated[str, Rule(_matching(names.EKS_CLUSTER_NAME, _CLUSTER_NAME))]
    create: Annotated[bool, Rule(_input(bool))] = True
    kubernetes_version: Optional[
        Annotated[str, Rule(_input(_checked(lambda v: kubernetes_version_problem("aws", v, plan_date().day))))]
    ] = None
    system_node_size: Optional[Annotated[str, Rule(_size("aws"))]] = None
    system_node_count: Optional[Annotated[int, Rule(_like(config.SystemPool, "count"))]] = None
    subnet_ids: Optional[
        Annotated[list[str], Rule(_input(list[_matching(names.SUBNET_ID, "a subnet id, subnet-0123456789abcdef0")]))]
    ] = None
    vpc_id: Optional[Annotated[str, Rule(_matching(names.VPC_ID, "a VPC id, vpc-0123456789abcdef0"))]] = None
    tags: Optional[Tags] = None

    @model_validator(mode="after")
    def _vpc_with_subnets(self) -> "EksClusterArgsModel":
        if isinstance(self.subnet_ids, list) and not any(is_deferred(subnet) for subnet in self.subnet_ids):
            problems = aws_rules.subnet_id_problems(self.subnet_ids)
            if problems:
                raise ValueError("\n".join(f"subnet_ids: {problem}" for problem in problems))
        subnets = self.subnet_ids is not None and (is_deferred(self.subnet_ids) or bool(self.subnet_ids))
        vpc = self.vpc_id is not None
        problem = (
            aws_rules.vpc_without_subnets_problem(subnets, vpc)
            # An existing cluster (create false) takes neither: its network is read from EKS.
            or (aws_rules.subnets_without_vpc_problem(subnets, vpc) if self.create is not False else None)
        )
        if problem:
            raise ValueError(f"vpc_id: {problem.replace('subnetIds', 'subnet_ids')}")
        return self


_SUBNETS: TypeAlias = Annotated[
    list[str], Rule(_input(list[_matching(names.SUBNET_ID, "a subnet id, subnet-0123456789abcdef0")]))
]


class EksGpuNodeGroupArgsModel(_Args):
    """Two ways to name the cluster: ``cluster`` (a pulumi-eks Cluster, Python only) or ``cluster_name`` and
    ``subnet_ids`` as strings or outputs (any language; ``aws.eks.NodeGroup`` needs the subnets)."""

    cluster: Optional[Annotated[Any, Rule(_pulumi_object("pulumi_eks Cluster"))]] = None
    cluster_name: Optional[Annotated[str, Rule(_matching(names.EKS_CLUSTER_NAME, _CLUSTER_NAME))]] = None
    node_role: Optional[Annotated[Any, Rule(_pulumi_object("pulumi_aws iam.Role"))]] = None
    node_role_arn: Optional[
        Annotated[str, Rule(_matching(names.IAM_ROLE_ARN, "an IAM role ARN, arn:aws:iam::<account>:role/<name>"))]
    ] = None
    node_group_name: Annotated[
        str,
        Rule(
            _matching(
                names.EKS_NODE_GROUP_NAME,
                f"1..{names.POOL_NAME_MAX} lowercase letters, digits and '-', alphanumeric at both ends",
            )
        ),
    ]
    instance_type: Annotated[str, Rule(_size("aws"))]
    desired_size: Count
    min_size: Optional[Count] = None
    max_size: Optional[Count] = None
    ignore_scaling_changes: Optional[Annotated[bool, Rule(_input(bool))]] = None
    ami_type: Optional[Annotated[str, Rule(_one_of(clouds.AMI_TYPES, clouds.REFUSED_AMI_TYPES))]] = None
    disk_size_gb: Optional[Annotated[int, Rule(_like(config.GpuPoolConfig, "disk_size_gb"))]] = None
    labels: Optional[
        Annotated[dict[str, str], Rule(_labels_but_ours(GPUPOOLS_NODE_LABELS, reserved_label_problem))]
    ] = None
    taints: Optional[Annotated[list[EksTaintModel], Rule(_input(list[_input(EksTaintModel)]))]] = None
    subnet_ids: Optional[_SUBNETS] = None
    capacity_type: Optional[Annotated[str, Rule(_like(config.GpuPoolConfig, "capacity_type"))]] = None
    capacity_reservation: Optional[Annotated[str, Rule(_input(str))]] = None
    efa: Optional[Annotated[bool, Rule(_input(bool))]] = None
    efa_interfaces: Optional[Annotated[int, Rule(_input(Annotated[int, Field(ge=1, le=32)]))]] = None
    tags: Optional[Tags] = None
    adopt_earlier_group: Optional[bool] = None
    autoscaler_tags: Optional[Tags] = None

    @model_validator(mode="after")
    def _capacity_and_efa(self) -> "EksGpuNodeGroupArgsModel":
        problems = self._one_way_to_the_cluster()
        reservation = self.capacity_reservation
        problems += [
            f"capacity_reservation: {problem}"
            for problem in aws_rules.reservation_problems(
                self.capacity_type if isinstance(self.capacity_type, str) else None,
                reservation if isinstance(reservation, str) else None,
                deferred=is_deferred(reservation),
            )
        ]
        problems += [
            f"autoscaler_tags: {problem}"
            for problem in _tag_problems(
                "aws",
                self.autoscaler_tags,
                AWS_TEMPLATE_TAG_BUDGET,
                f" on the Auto Scaling group (AWS allows {names.MAX_TAGS}; EKS sets {EKS_OWN_ASG_TAGS} itself)",
            )
        ]
        if self.efa is True and not is_deferred(self.subnet_ids):
            subnets = aws_rules.efa_subnet_problem(self.subnet_ids)
            problems += [f"subnet_ids: {subnets}"] if subnets else []
        if self.efa is True and isinstance(self.instance_type, str):
            capable = EFA_INTERFACES.get(self.instance_type, 0)
            no_efa = aws_rules.efa_size_problem(self.instance_type, capable)
            asked = self.efa_interfaces if isinstance(self.efa_interfaces, int) and not no_efa else None
            too_many = aws_rules.efa_size_problem(self.instance_type, capable, asked) if asked else None
            problems += [f"efa: {no_efa}"] if no_efa else []
            problems += [f"efa_interfaces: {too_many}"] if too_many else []
        problems += self._list_problems()
        if isinstance(self.instance_type, str):
            layout = mig_config_label_problem(self.instance_type, self.labels)
            problems += [f"labels: {MIG_CONFIG_LABEL}: {layout}"] if layout else []
        if self.efa_interfaces is not None and self.efa is not True:
            problems.append("efa_interfaces: only with efa true")
        for low in ("min_size", "desired_size"):
            if isinstance(getattr(self, low), int) and isinstance(self.max_size, int):
                bounds = config.bounds_problem(getattr(self, low), self.max_size, low, "max_size")
                problems += [f"{low}: {bounds}"] if bounds else []
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def _list_problems(self) -> list[str]:
        """Each subnet once, one taint per key and effect (Outputs are checked by the cloud)."""
        problems = []
        if isinstance(self.subnet_ids, list) and not any(is_deferred(subnet) for subnet in self.subnet_ids):
            problems += [f"subnet_ids: {why}" for why in aws_rules.subnet_id_problems(self.subnet_ids)]
        taints = self.taints
        if isinstance(taints, list) and not any(is_deferred(taint) for taint in taints):
            problems += [
                f"taints: {why}"
                for why in duplicate_taint_problems(
                    [(t.key, t.value, t.effect) for t in taints if all(isinstance(v, str) for v in (t.key, t.effect))]
                )
            ]
        return problems

    def _one_way_to_the_cluster(self) -> list[str]:
        """Exactly one of the two ways, and the role given at most once, in the way's own spelling."""
        problems = []
        if self.cluster is None and self.cluster_name is None:
            problems.append(
                "cluster_name: is required (with subnet_ids), or cluster, a pulumi-eks Cluster, from Python"
            )
        elif self.cluster is not None and self.cluster_name is not None:
            problems.append(
                "cluster_name: give cluster (a pulumi-eks Cluster) or cluster_name with subnet_ids, not both"
            )
        elif self.cluster_name is not None:
            if self.node_role is not None:
                problems.append("node_role: only with cluster; with cluster_name give node_role_arn")
            if self.subnet_ids is None or (isinstance(self.subnet_ids, list) and not self.subnet_ids):
                problems.append(
                    "subnet_ids: is required with cluster_name (e.g. EksCluster's subnet_ids output): "
                    "without a pulumi-eks Cluster there is no default"
                )
        if self.node_role is not None and self.node_role_arn is not None:
            problems.append("node_role_arn: give node_role or node_role_arn, not both")
        return problems


def reservation_target_key(reservation: str) -> str | None:
    """The launch template's ``capacity_reservation_target`` key for an ODCR id or group ARN; None for neither."""
    if names.CAPACITY_RESERVATION_ID.fullmatch(reservation):
        return "capacity_reservation_id"
    if names.CAPACITY_RESERVATION_GROUP_ARN.fullmatch(reservation):
        return "capacity_reservation_resource_group_arn"
    return None
