"""An EKS managed node group of GPU instances on an NVIDIA AMI, tainted for GPU workloads.

Where the GPU Operator lays out MIG, the node group carries ``nvidia.com/mig.config=<layout>`` from
creation so the MIG manager partitions each node before any workload can land on it. Reservations,
Capacity Blocks and EFA go through a launch template (``launch_template.py``), a child of the component.
For the cluster autoscaler, ``autoscaler_tags`` become tags on the node group's Auto Scaling group (one
``aws.autoscaling.Tag`` each): managed node group tags do not propagate to it (AWS ``AWS::EKS::Nodegroup``
Tags), and the autoscaler builds a node from them when the group is at zero.

Component references do not cross languages, and pulumi-eks's ``ManagedNodeGroup`` needs its ``Cluster``
object; so from a name, a role ARN and subnets (strings or outputs) the group is an ``aws.eks.NodeGroup``.
"""

from collections.abc import Sequence
from typing import Any, NotRequired, Optional, TypedDict, TypeVar

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks

from ..component_args.docstrings import documented
from ..component_args.aws import EksGpuNodeGroupArgsModel
from ..component_args.checking import check_args
from ..catalog.clouds import DEFAULT_AMI_TYPE
from ..catalog.labels import GPU_TAINT
from .launch_template import LaunchTemplateSpec, gpu_launch_template
from .node_role import node_role

T = TypeVar("T")

TYPE_TOKEN = "gpupools:index:EksGpuNodeGroup"
AUTOSCALER_TAG_PREFIX = "k8s.io/cluster-autoscaler/"
# EKS spells Kubernetes taint effects in upper snake case.
# The node group's desired size as an engine property path (pulumi-aws's own NodeGroup example ignores it so).
DESIRED_SIZE = "scalingConfig.desiredSize"
_GPU_TAINTS = [{"key": GPU_TAINT.key, "value": GPU_TAINT.value, "effect": GPU_TAINT.effect}]
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
    """Inputs of ``EksGpuNodeGroup``: the cluster as ``cluster`` (Python) or as ``cluster_name`` and ``subnet_ids``
    (any language)."""

    cluster: NotRequired[eks.Cluster]
    """The pulumi-eks cluster the node group joins (Python only); from other languages give clusterName and """
    """subnetIds instead."""
    cluster_name: NotRequired[pulumi.Input[str]]
    (
        """Name of the EKS cluster the node group joins (e.g. EksCluster's cluster_name); needs subnet_ids; not with """
        """cluster."""
    )
    node_role: NotRequired[aws.iam.Role]
    """IAM role of the nodes (with cluster only); by default the group gets its own with the managed policies."""
    node_role_arn: NotRequired[pulumi.Input[str]]
    """ARN of the nodes' IAM role (e.g. EksCluster's node_role_arn); by default the group gets its own role."""
    node_group_name: str
    """EKS node group name."""
    instance_type: str
    """GPU instance type, e.g. p4d.24xlarge."""
    desired_size: pulumi.Input[int]
    """Nodes to run (may be an output; then max_size defaults to it, at least 1, once known)."""
    min_size: NotRequired[int]
    """Lower bound for scaling (default: desired_size)."""
    max_size: NotRequired[int]
    """Upper bound for scaling (default: desired_size)."""
    ignore_scaling_changes: NotRequired[bool]
    (
        """Leave the desired size to the cluster autoscaler: later changes to desired_size are ignored (default: """
        """true when min_size and max_size are given and differ)."""
    )
    ami_type: NotRequired[str]
    """AL2023_x86_64_NVIDIA (default, and the only AMI type taken; docs/sources.md says why the others are refused)."""
    disk_size_gb: NotRequired[int]
    """Root volume size in GB."""
    labels: NotRequired[dict[str, str]]
    """Kubernetes labels of the nodes."""
    taints: NotRequired[list[TaintArgs]]
    (
        """Kubernetes taints of the nodes; unset: nvidia.com/gpu=present:NoSchedule (the taint GPU workloads """
        """tolerate), an explicit [] leaves the nodes untainted."""
    )
    subnet_ids: NotRequired[pulumi.Input[list[pulumi.Input[str]]]]
    (
        """Subnets of the node group (with cluster, default: the cluster's; required with cluster_name, e.g. """
        """EksCluster's subnet_ids); one Availability Zone's for a Capacity Block or EFA."""
    )
    capacity_type: NotRequired[str]
    """ON_DEMAND (EKS default), SPOT or CAPACITY_BLOCK (needs capacity_reservation, the block's cr- id)."""
    capacity_reservation: NotRequired[str]
    """An On-Demand Capacity Reservation id (cr-...) or a capacity reservation resource group ARN to launch into."""
    efa: NotRequired[bool]
    """Elastic Fabric Adapter: a cluster placement group and one EFA interface per network card."""
    efa_interfaces: NotRequired[int]
    """EFA interfaces per node (the instance type's maximum, e.g. 4 on p4d.24xlarge, 32 on p5.48xlarge); with efa."""
    tags: NotRequired[dict[str, str]]
    """AWS tags."""
    adopt_earlier_group: NotRequired[bool]
    (
        """With create-first (delete_before_replace=False): alias the generation to <name>-ng, the node group """
        """resource gpupools 0.2.0 registered, so a group whose name is unchanged is kept (default true). False """
        """where the name differs from 0.2.0's anyway: the alias would make that replacement delete-first."""
    )
    autoscaler_tags: NotRequired[dict[str, str]]
    (
        """Tags for the node group's Auto Scaling group: the cluster autoscaler's discovery tags """
        """(k8s.io/cluster-autoscaler/enabled, k8s.io/cluster-autoscaler/<cluster>) and node-template tags """
        """(k8s.io/cluster-autoscaler/node-template/label/..., /taint/..., /resources/...) for the pool's labels, """
        """taints and GPU resources, so it can scale from zero; GpuPlatform fills them in for an autoscaled pool. """
        """At most 47 (EKS sets 3 of AWS's 50)."""
    )


@documented
class EksGpuNodeGroup(pulumi.ComponentResource):
    """A GPU managed node group, by default with its own node role.

    With ``cluster`` it is a pulumi-eks ``ManagedNodeGroup``; with ``cluster_name`` (plain strings or outputs,
    what other languages can pass) an ``aws.eks.NodeGroup`` with the same settings.
    """

    node_group_name: pulumi.Output[str]
    """Name of the EKS node group."""
    auto_scaling_group_name: pulumi.Output[str]
    """Name of the Auto Scaling group EKS created for the node group."""

    def __init__(self, name: str, args: EksGpuNodeGroupArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register the EksGpuNodeGroup under ``name``; ``args`` is checked first (``ComponentArgsError`` names each
        bad key).

        :param name: the Pulumi resource name; children are named ``<name>-...``.
        :param args: ``EksGpuNodeGroupArgs``: a dict whose keys help() lists under Args below (an editor
            shows each key's docstring as it completes the keys).
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(EksGpuNodeGroupArgsModel, "EksGpuNodeGroup", name, args)
        super().__init__(TYPE_TOKEN, name, None, opts)
        tags = args.get("tags") or {}
        role_arn = args.get("node_role_arn")
        role = args.get("node_role") or (None if role_arn is not None else node_role(f"{name}-nodes", self, tags))
        ami_type = args.get("ami_type") or DEFAULT_AMI_TYPE
        spec = LaunchTemplateSpec(
            instance_type=args["instance_type"],
            capacity_type=args.get("capacity_type"),
            capacity_reservation=args.get("capacity_reservation"),
            disk_size_gb=args.get("disk_size_gb"),
            efa_interfaces=(args.get("efa_interfaces") or 1) if args.get("efa") else 0,
        )
        cluster = args.get("cluster")
        vpc_config = None
        if spec.efa_interfaces:  # EFA interfaces carry the cluster security group, in the cluster's VPC
            vpc_config = (
                cluster.eks_cluster.vpc_config
                if cluster is not None
                else aws.eks.get_cluster_output(
                    name=_required(args.get("cluster_name"), "cluster_name"), opts=pulumi.InvokeOptions(parent=self)
                ).vpc_config
            )
        template = gpu_launch_template(name, spec, vpc_config, self, tags) if spec.needed else None
        settings = _node_group_settings(args, spec, ami_type, template, tags)
        child = pulumi.ResourceOptions(parent=self)
        autoscaled = _autoscaled(args)
        if cluster is not None:
            # pulumi-eks sets ignoreChanges on the aws.eks.NodeGroup it registers: options on a remote component
            # would not reach it.
            group = eks.ManagedNodeGroup(
                _generation_name(name, args, opts),
                cluster=cluster,
                node_role=role,
                node_role_arn=role_arn,
                ignore_scaling_changes=autoscaled or None,
                **settings,
                opts=pulumi.ResourceOptions(parent=self, aliases=_earlier_names(name, args, opts)),
            )
            self.node_group_name = group.node_group.node_group_name
            resources = group.node_group.apply(lambda node_group: node_group.resources)
        else:
            plain = aws.eks.NodeGroup(
                f"{name}-ng",
                cluster_name=_required(args.get("cluster_name"), "cluster_name"),
                node_role_arn=role_arn if role_arn is not None else _required(role, "node_role").arn,
                **settings,
                opts=pulumi.ResourceOptions(
                    parent=self,
                    ignore_changes=[DESIRED_SIZE] if autoscaled else None,
                    delete_before_replace=_delete_first(opts),
                ),
            )
            self.node_group_name = plain.node_group_name
            resources = plain.resources
        # EKS creates one Auto Scaling group per node group.
        self.auto_scaling_group_name = resources.apply(_auto_scaling_group_name)
        for key, value in sorted((args.get("autoscaler_tags") or {}).items()):
            aws.autoscaling.Tag(
                # Named by key, so adding or removing one tag leaves the others alone.
                f"{name}-asg-{key.removeprefix(AUTOSCALER_TAG_PREFIX)}",
                autoscaling_group_name=self.auto_scaling_group_name,
                # Only the group is tagged: the autoscaler reads the group, and instances need none of these.
                tag=aws.autoscaling.TagTagArgs(key=key, value=value, propagate_at_launch=False),
                opts=child,
            )
        self.register_outputs(
            {"nodeGroupName": self.node_group_name, "autoScalingGroupName": self.auto_scaling_group_name}
        )


def _node_group_settings(
    args: EksGpuNodeGroupArgs,
    spec: LaunchTemplateSpec,
    ami_type: str,
    template: aws.ec2.LaunchTemplate | None,
    tags: dict[str, str],
) -> dict[str, Any]:
    """What ``eks.ManagedNodeGroup`` and ``aws.eks.NodeGroup`` both take, in the arguments both spell alike."""
    desired = args["desired_size"]
    # Unset: the GPU taint the module promises; a list given (even []) is taken as is.
    taints = args.get("taints")
    return {
        "node_group_name": args["node_group_name"],
        # EKS refuses an instance type in both places; a Capacity Block's template carries it.
        "instance_types": None if spec.capacity_block else [args["instance_type"]],
        "capacity_type": args.get("capacity_type"),
        "ami_type": ami_type,
        # With a launch template EKS refuses diskSize: the template's block device mapping has it.
        "disk_size": None if template else args.get("disk_size_gb"),
        "launch_template": aws.eks.NodeGroupLaunchTemplateArgs(
            id=template.id,
            version=template.latest_version.apply(str),
        )
        if template
        else None,
        "scaling_config": aws.eks.NodeGroupScalingConfigArgs(
            desired_size=desired,
            min_size=_or(args.get("min_size"), desired),
            max_size=_or(args.get("max_size"), _at_least_one(desired)),  # EKS requires maxSize >= 1
        ),
        "labels": args.get("labels") or {},
        "taints": [_taint(t) for t in (_GPU_TAINTS if taints is None else taints)],
        "subnet_ids": args.get("subnet_ids"),
        "tags": tags,
    }


def _taint(taint: Any) -> Any:
    """One taint in EKS's spelling of its effect; a taint or an effect that is an output (a secret, another
    resource's output, a provider input) is spelled so once it resolves."""
    if isinstance(taint, pulumi.Output):
        return taint.apply(_taint)
    effect = taint["effect"]
    return aws.eks.NodeGroupTaintArgs(
        key=taint["key"],
        value=taint["value"],
        effect=effect.apply(EKS_TAINT_EFFECTS.__getitem__)
        if isinstance(effect, pulumi.Output)
        else EKS_TAINT_EFFECTS[effect],
    )


def _create_first(args: EksGpuNodeGroupArgs, opts: Optional[pulumi.ResourceOptions]) -> bool:
    """Create-first asked for (``delete_before_replace=False`` on the component) with a plain node group name."""
    return opts is not None and opts.delete_before_replace is False and isinstance(args["node_group_name"], str)


def _generation_name(name: str, args: EksGpuNodeGroupArgs, opts: Optional[pulumi.ResourceOptions]) -> str:
    """The ManagedNodeGroup's logical name: ``<name>-<node group name>`` when create-first is asked for, so each
    generation (its node group name carries a hash of the fields fixed at creation) is a resource of its own, with
    its own URN: the engine creates the new one while the program runs and deletes the old one, which the program
    no longer registers, after it (pulumi/pulumi v3.259.0 ``deployment_executor.go``: deletes are generated in
    ``performPostSteps``, once the program has exited; a failed create bails before them, so the old group stays).
    pulumi-eks's ManagedNodeGroup takes no create-first option for its node group, so this is the only way to get
    one. Otherwise ``<name>-ng``, as before."""
    return f"{name}-{args['node_group_name']}" if _create_first(args, opts) else f"{name}-ng"


def _earlier_names(name: str, args: EksGpuNodeGroupArgs, opts: Optional[pulumi.ResourceOptions]) -> list | None:
    """A group registered as ``<name>-ng`` by an earlier gpupools keeps its resource under the generation name: an
    alias matches only a resource in state, so a later generation, whose old group is ``<name>-<old name>``, is
    still a new resource. Not with ``adopt_earlier_group: false``: a group whose name differs from 0.2.0's would
    be that resource replaced, delete-first (``plan.aliases``); without the alias it is created first."""
    adopt = args.get("adopt_earlier_group")
    return [pulumi.Alias(name=f"{name}-ng")] if _create_first(args, opts) and adopt is not False else None


def _delete_first(opts: Optional[pulumi.ResourceOptions]) -> bool:
    """The component's ``delete_before_replace`` for the ``aws.eks.NodeGroup`` it registers itself, True when unset.

    Sent explicitly (``deleteBeforeReplaceDefined``), so an explicit False overrides the provider's delete-first for
    a named node group: a new generation's name lets the new group come first. pulumi-eks's ManagedNodeGroup (the
    ``cluster`` path) offers no such option to its child, and a transform's False is never serialised.
    """
    given = opts.delete_before_replace if opts is not None else None
    return True if given is None else bool(given)


def _autoscaled(args: EksGpuNodeGroupArgs) -> bool:
    """Whether the cluster autoscaler owns the desired size: as given, else a min..max range that is a range."""
    given = args.get("ignore_scaling_changes")
    if given is not None:
        return given
    low, high = args.get("min_size"), args.get("max_size")
    return low is not None and high is not None and low != high


def _at_least_one(desired: pulumi.Input[int]) -> pulumi.Input[int]:
    """``max(desired, 1)``, once known when ``desired`` is an output (a count another resource decides)."""
    if isinstance(desired, int):
        return max(desired, 1)
    return pulumi.Output.from_input(desired).apply(lambda count: max(count, 1))


def _or(value: pulumi.Input[int] | None, default: pulumi.Input[int]) -> pulumi.Input[int]:
    """``value`` unless unset; unlike ``or`` it keeps an explicit 0."""
    return default if value is None else value


def _required(value: T | None, key: str) -> T:
    """A value ``EksGpuNodeGroupArgsModel`` requires on this path (``cluster_name`` without ``cluster``, a node
    role without ``node_role_arn``): a guard, should the check and the code ever disagree."""
    if value is None:
        raise ValueError(f"EksGpuNodeGroup: {key} is required here")
    return value


def _auto_scaling_group_name(found: Sequence[aws.eks.outputs.NodeGroupResource]) -> str:
    """EKS creates one Auto Scaling group per node group; the SDK types each level ``Optional``."""
    groups = found[0].autoscaling_groups if found else None
    name = groups[0].name if groups else None
    if name is None:
        raise ValueError("EKS reported no Auto Scaling group for the node group")
    return name
