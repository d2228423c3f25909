"""An EKS managed node group of GPU instances on an NVIDIA AMI, tainted for GPU workloads.

Where the GPU Operator lays out MIG, the node group carries ``nvidia.com/mig.config=<layout>`` from
creation so the MIG manager partitions each node before any workload can land on it.
"""


from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks

from .node_role import node_role

TYPE_TOKEN = "gpupools:index:EksGpuNodeGroup"
DEFAULT_AMI_TYPE = "AL2023_x86_64_NVIDIA"
# EKS spells Kubernetes taint effects in upper snake case.
EKS_TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}


class TaintArgs(TypedDict):
    """A Kubernetes taint."""

    key: str
    """Taint key, e.g. nvidia.com/gpu."""
    value: str
    """Taint value, e.g. present."""
    effect: str
    """Kubernetes effect: NoSchedule, NoExecute or PreferNoSchedule."""


class EksGpuNodeGroupArgs(TypedDict):
    """Inputs of ``EksGpuNodeGroup``."""

    cluster: eks.Cluster
    """The pulumi-eks cluster the node group joins."""
    node_role: NotRequired[aws.iam.Role]
    """IAM role of the nodes (e.g. the cluster's); by default the group gets its own with the managed policies."""
    node_group_name: str
    """EKS node group name."""
    instance_type: str
    """GPU instance type, e.g. p4d.24xlarge."""
    desired_size: int
    """Nodes to run."""
    min_size: NotRequired[int]
    """Lower bound for scaling (default: desired_size)."""
    max_size: NotRequired[int]
    """Upper bound for scaling (default: desired_size)."""
    ami_type: NotRequired[str]
    """AL2023_x86_64_NVIDIA (default), BOTTLEROCKET_x86_64_NVIDIA, or AL2023_x86_64_STANDARD when the GPU Operator installs the driver."""
    disk_size_gb: NotRequired[int]
    """Root volume size in GB."""
    labels: NotRequired[dict[str, str]]
    """Kubernetes labels of the nodes."""
    taints: NotRequired[list[TaintArgs]]
    """Kubernetes taints of the nodes."""
    subnet_ids: NotRequired[list[str]]
    """Subnets of the node group (default: the cluster's)."""
    tags: NotRequired[dict[str, str]]
    """AWS tags."""


class EksGpuNodeGroup(pulumi.ComponentResource):
    """A GPU managed node group with its own node role."""

    node_group_name: pulumi.Output[str]
    """Name of the EKS node group."""

    def __init__(self, name: str, args: EksGpuNodeGroupArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        tags = args.get("tags") or {}
        role = args.get("node_role") or node_role(f"{name}-nodes", self, tags)
        desired = args["desired_size"]
        group = eks.ManagedNodeGroup(
            f"{name}-ng",
            cluster=args["cluster"],
            node_group_name=args["node_group_name"],
            node_role=role,
            instance_types=[args["instance_type"]],
            ami_type=args.get("ami_type") or DEFAULT_AMI_TYPE,
            disk_size=args.get("disk_size_gb"),
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                desired_size=desired,
                min_size=_or(args.get("min_size"), desired),
                max_size=_or(args.get("max_size"), max(desired, 1)),
            ),
            labels=args.get("labels") or {},
            taints=[
                aws.eks.NodeGroupTaintArgs(key=t["key"], value=t["value"], effect=EKS_TAINT_EFFECTS[t["effect"]])
                for t in args.get("taints") or []
            ],
            subnet_ids=args.get("subnet_ids"),
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.node_group_name = group.node_group.node_group_name
        self.register_outputs({"nodeGroupName": self.node_group_name})


def _or(value: int | None, default: int) -> int:
    """``value`` unless unset; unlike ``or`` it keeps an explicit 0."""
    return default if value is None else value
