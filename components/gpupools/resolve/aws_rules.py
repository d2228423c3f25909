"""Rules only EKS imposes: names, region and network ids, AMI types, the driver, and how capacity is bought.

Each refusal names its source in ``docs/sources.md``; those marked "ours" there are our judgment.
"""

from __future__ import annotations

from collections import Counter

from typing import Callable

from ..catalog.instances import InstanceSize
from ..catalog.clouds import AMI_TYPES, DEFAULT_AMI_TYPE, REFUSED_AMI_TYPES, SCARCE_FAMILIES
from ..catalog.labels import GPU_TAINT
from ..config.errors import Findings, Problem, field_path
from ..config.models import ClusterAutoscalerConfig, GpuPoolConfig, StackConfig
from ..domain.pools import ResolvedPool
from ..catalog.names import (
    AWS_REGION,
    CAPACITY_RESERVATION_GROUP_ARN,
    CAPACITY_RESERVATION_ID,
    EKS_CLUSTER_NAME,
    EKS_NODE_GROUP_NAME,
    IAM_ROLE_ARN,
    POOL_NAME_MAX,
    SUBNET_ID,
    VPC_ID,
)

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.provisioners import provisioner_named
from .autoscaling_rules import aws_template_tag_problems
from .cloud_rules import CloudRules, no_findings
from .reservation_rules import reservation_findings

Path = Callable[..., str]
# The extended resource the AWS EFA device plugin advertises (EKS "Manage EFA devices on Amazon EKS").
EFA_RESOURCE = "vpc.amazonaws.com/efa"


def cluster_problems(config: StackConfig) -> list[Problem]:
    cluster, problems = config.cluster, []
    path = lambda key: field_path("cluster", key)  # noqa: E731
    if not EKS_CLUSTER_NAME.fullmatch(cluster.name):
        problems.append(
            Problem(
                path("name"),
                f"'{cluster.name}' is not an EKS cluster name; allowed: 1..100 letters, "
                "digits, '-' and '_', starting with a letter or digit",
            )
        )
    if not cluster.region:
        problems.append(Problem(path("region"), "is required on aws (e.g. us-east-1)"))
    elif not AWS_REGION.fullmatch(cluster.region):
        problems.append(Problem(path("region"), f"'{cluster.region}' is not an AWS region; allowed: e.g. us-east-1"))
    for key, value in (("resourceGroup", cluster.resource_group), ("location", cluster.location)):
        if value:
            problems.append(Problem(path(key), "is for azure; on aws use region"))
    problems += subnet_problems(cluster.subnet_ids, path("subnetIds"))
    problems += existing_cluster_problems(config) if not cluster.create else created_cluster_problems(config)
    autoscaler = cluster.autoscaler
    unused = sorted(autoscaler.model_fields_set - {"install"})
    if not autoscaler.install and unused:
        keys = ", ".join(ClusterAutoscalerConfig.model_fields[name].alias or name for name in unused)
        problems.append(
            Problem(
                path("autoscaler"),
                f"{keys} apply to the autoscaler gpupools installs; set install: true or remove them",
            )
        )
    if cluster.vpc_id is not None and not VPC_ID.fullmatch(cluster.vpc_id):
        problems.append(
            Problem(
                path("vpcId"),
                f"'{cluster.vpc_id[:40]}' is not a VPC id; allowed: vpc- and 8 or 17 lowercase hex digits",
            )
        )
    return problems


def created_cluster_problems(config: StackConfig) -> list[Problem]:
    """A cluster gpupools creates: pulumi-eks places it in subnetIds and their vpcId, and makes its node role."""
    cluster, problems = config.cluster, []
    path = lambda key: field_path("cluster", key)  # noqa: E731
    no_vpc = subnets_without_vpc_problem(bool(cluster.subnet_ids), cluster.vpc_id is not None)
    problems += [Problem(path("vpcId"), no_vpc)] if no_vpc else []
    vpc_alone = vpc_without_subnets_problem(bool(cluster.subnet_ids), cluster.vpc_id is not None)
    problems += [Problem(path("vpcId"), vpc_alone)] if vpc_alone else []
    if cluster.node_role_arn is not None:
        problems.append(
            Problem(
                path("nodeRoleArn"),
                "is for an existing cluster (create: false); a cluster gpupools creates gets its own node role, "
                "exported as nodeRoleArn",
            )
        )
    return problems


def existing_cluster_problems(config: StackConfig) -> list[Problem]:
    """A cluster another stack owns (create: false): gpupools adds only GPU node groups and the NVIDIA software.

    Its network, security group and OIDC issuer are read from EKS (``aws.eks.get_cluster``); what gpupools would
    only set on a cluster it creates is refused rather than ignored."""
    cluster, problems = config.cluster, []
    path = lambda key: field_path("cluster", key)  # noqa: E731
    if cluster.system_pool is not None:
        problems.append(
            Problem(path("systemPool"), "is for a cluster gpupools creates; the existing cluster has its own")
        )
    if cluster.vpc_id is not None:
        problems.append(
            Problem(
                path("vpcId"),
                "is for a cluster gpupools creates; the existing cluster's VPC is read from EKS (its node groups "
                "go in subnetIds, by default the cluster's own subnets)",
            )
        )
    if cluster.autoscaler.install:
        problems.append(
            Problem(
                field_path("cluster", "autoscaler", "install"),
                "is for a cluster gpupools creates: one cluster autoscaler serves a whole cluster, so the stack "
                "that owns the shared cluster installs it (node groups here carry its discovery tags)",
            )
        )
    if cluster.node_role_arn is not None and not IAM_ROLE_ARN.fullmatch(cluster.node_role_arn):
        problems.append(
            Problem(
                path("nodeRoleArn"),
                f"'{cluster.node_role_arn[:80]}' is not an IAM role ARN; allowed: "
                "arn:aws:iam::<12-digit account>:role/<name>, e.g. the platform stack's nodeRoleArn output",
            )
        )
    return problems


def subnets_without_vpc_problem(subnets_given: bool, vpc_given: bool) -> str | None:
    """Subnets without their VPC: pulumi-eks would put the cluster security group in the default VPC (the config
    and ``EksClusterArgsModel``)."""
    if subnets_given and not vpc_given:
        return (
            "is required with subnetIds: without it pulumi-eks puts the cluster security group in the default "
            "VPC; set the VPC of those subnets"
        )
    return None


def vpc_without_subnets_problem(subnets_given: bool, vpc_given: bool) -> str | None:
    """A VPC without subnets: pulumi-eks would use the default VPC's (the config and ``EksClusterArgsModel``)."""
    if vpc_given and not subnets_given:
        return "needs subnetIds in that VPC: without them pulumi-eks uses the default VPC's subnets"
    return None


def subnet_problems(subnet_ids: list[str], path: str) -> list[Problem]:
    return [Problem(path, why) for why in subnet_id_problems(subnet_ids)]


def subnet_id_problems(subnet_ids: list[str]) -> list[str]:
    """Each subnet id well formed and given once (the config's subnetIds and the EKS components' subnet_ids). Linear
    in the list, and at most ``MAX_SUBNET_LINES`` malformed ids are named: 10,000 subnets are one mistake."""
    malformed = list(dict.fromkeys(subnet[:40] for subnet in subnet_ids if not SUBNET_ID.fullmatch(subnet)))
    problems = [
        f"'{subnet}' is not a subnet id; allowed: subnet- and 8 or 17 lowercase hex digits"
        for subnet in malformed[:MAX_SUBNET_LINES]
    ]
    if len(malformed) > MAX_SUBNET_LINES:
        problems.append(f"{len(malformed) - MAX_SUBNET_LINES} more ids are not subnet ids (not shown)")
    repeated = sorted(subnet[:40] for subnet, times in Counter(subnet_ids).items() if times > 1)
    if repeated:
        shown = ", ".join(repeated[:MAX_SUBNET_LINES]) + (
            f" and {len(repeated) - MAX_SUBNET_LINES} more" if len(repeated) > MAX_SUBNET_LINES else ""
        )
        problems.append(f"lists {shown} more than once; each subnet at most once")
    return problems


MAX_SUBNET_LINES = 5


def software_problems(config: StackConfig) -> list[Problem]:
    if config.gpu_software.driver != "operator":
        return []
    return [
        Problem(
            field_path("gpuSoftware", "driver"),
            "'operator' is refused on aws: the GPU Operator has no driver container for Amazon Linux; allowed: "
            f"preinstalled (the {DEFAULT_AMI_TYPE} AMI ships the driver)",
        )
    ]


def pool_name_problem(index: int, name: str) -> Problem | None:
    if EKS_NODE_GROUP_NAME.fullmatch(name):
        return None
    return Problem(
        field_path("gpuPools", index, "name"),
        f"'{name}' is not a valid pool name on aws; allowed: lowercase letters, digits and '-', starting "
        f"and ending with a letter or digit, at most {POOL_NAME_MAX} characters (it also names Kubernetes "
        "objects)",
    )


def pool_problems(config: StackConfig, pool: GpuPoolConfig, size: InstanceSize, path: Path) -> Findings:
    found = Findings(_ami_problems(pool, path) + subnet_problems(pool.subnet_ids, path("subnetIds")))
    problems, warnings = found.problems, found.warnings
    problems += _reservation_problems(config, pool, path)
    held = reservation_findings(
        pool,
        path,
        "capacityReservation",
        pool.capacity_reservation is not None,
        launches_beyond=False,
        block=pool.capacity_type == "CAPACITY_BLOCK",
    )
    problems += held.problems
    warnings += held.warnings
    no_efa = efa_size_problem(size.name, size.efa_interfaces) if pool.efa else None
    problems += [Problem(path("efa"), no_efa)] if no_efa else []
    if pool.efa:
        warnings.append(
            f"pool {pool.name}: efa gives its nodes EFA interfaces, but pods can request them "
            f"({EFA_RESOURCE}) only through the AWS EFA device plugin (aws-efa-k8s-device-plugin), which "
            "the EKS AL2023 AMIs do not ship and gpupools does not install: install it tolerating the "
            f'{GPU_TAINT.key} taint, or NCCL falls back to TCP (EKS "Manage EFA devices")'
        )
        subnets = efa_subnet_problem(pool.subnet_ids)
        problems += [Problem(path("subnetIds"), subnets)] if subnets else []
        if config.cluster is not None and config.cluster.create and config.cluster.vpc_id is None:
            problems.append(
                Problem(
                    path("efa"),
                    "needs the cluster's own VPC (gpupools:cluster subnetIds and vpcId): "
                    "nodes with several network interfaces get no public IP, so in the "
                    "default VPC's public subnets they cannot reach EKS and never join",
                )
            )
    if size.name.startswith(SCARCE_FAMILIES) and pool.capacity_reservation is None and pool.capacity_type != "SPOT":
        warnings.append(
            f"pool {pool.name}: {size.name} capacity is scarce on demand; without capacityReservation "
            f"(or capacityType SPOT) the {provisioner_named(pool.provisioner).display_name} may wait for instances"
        )
    return found


def region_partition(region: str) -> str:
    """The ARN partition of a region: ``aws-cn`` for cn-*, ``aws-us-gov`` for us-gov-*, else ``aws``."""
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def partition_problem(partition: str, region: str) -> str | None:
    """An ARN whose partition is not its region's (``arn:aws:...`` for cn-north-1): no such resource can exist."""
    expected = region_partition(region)
    if partition == expected:
        return None
    return f"the ARN's partition is {partition} but {region} is in {expected}; allowed: arn:{expected}:..."


def efa_size_problem(instance_type: str, capable: int, asked: int | None = None) -> str | None:
    """EFA only on a size with EFA interfaces, and no more of them than it has (the config's ``efa`` and
    ``EksGpuNodeGroup``'s ``efa``/``efa_interfaces``; ``capable``: the catalog's count, 0 for none or unknown)."""
    if capable == 0:
        return (
            f"{instance_type[:80]} has no EFA interface; allowed on EFA-capable sizes (p4d, p4de, p5, p5e, "
            "p5en, p6-b200 and the larger g5, g6 and g6e sizes)"
        )
    if asked is not None and asked > capable:
        return f"{instance_type} has {capable} EFA interfaces, not {asked}; allowed: 1..{capable}"
    return None


def efa_subnet_problem(subnet_ids: list[str] | None) -> str | None:
    """EFA nodes share one cluster placement group, which lives in one availability zone; a subnet id's zone is not
    known offline, so exactly one subnet is asked for (the config's ``subnetIds``, ``EksGpuNodeGroup``'s
    ``subnet_ids``)."""
    if subnet_ids is not None and len(subnet_ids) == 1:
        return None
    given = "none" if not subnet_ids else f"{len(subnet_ids)}"
    return (
        f"efa needs exactly one subnet of the pool's own, got {given}: its cluster placement group lives in one "
        "availability zone (pulumi-eks refuses EFA without one), and a subnet's zone cannot be checked offline"
    )


def _ami_problems(pool: GpuPoolConfig, path: Path) -> list[Problem]:
    ami = pool.ami_type
    if ami is None or ami in AMI_TYPES:
        return []
    if ami in REFUSED_AMI_TYPES:
        return [Problem(path("amiType"), f"'{ami}' is refused: {REFUSED_AMI_TYPES[ami]}")]
    return [
        Problem(
            path("amiType"), f"'{ami}' is not a supported EKS AMI type for GPU pools; allowed: {', '.join(AMI_TYPES)}"
        )
    ]


def _reservation_problems(config: StackConfig, pool: GpuPoolConfig, path: Path) -> list[Problem]:
    region = config.cluster.region if config.cluster is not None else None
    problems = [
        Problem(path("capacityReservation"), message)
        for message in reservation_problems(pool.capacity_type, pool.capacity_reservation, region)
    ]
    if pool.capacity_reservation is not None and not pool.subnet_ids:
        problems.append(
            Problem(
                path("subnetIds"),
                "is required with capacityReservation: a reservation lives in "
                "one availability zone, so pin the pool to subnets in that zone",
            )
        )
    return problems


def reservation_problems(
    capacity_type: str | None, reservation: str | None, region: str | None = None, deferred: bool = False
) -> list[str]:
    """Why a node group cannot launch into ``reservation``: the one rule of the stack config and of
    ``EksGpuNodeGroupArgsModel`` (``deferred``: the reservation is an output, its text unknown until deploy)."""
    if deferred:
        return []
    problems = []
    arn = CAPACITY_RESERVATION_GROUP_ARN.fullmatch(reservation) if reservation is not None else None
    is_id = reservation is not None and CAPACITY_RESERVATION_ID.fullmatch(reservation) is not None
    if reservation is not None and arn is None and not is_id:
        problems.append(
            f"'{reservation[:80]}' is not a capacity reservation; allowed: cr- and 17 lowercase hex "
            "digits, or arn:aws:resource-groups:<region>:<account>:group/<name>"
        )
    elif arn is not None and partition_problem(arn.group("partition"), arn.group("region")):
        problems.append(partition_problem(arn.group("partition"), arn.group("region")))
    elif arn is not None and region and arn.group("region") != region:
        problems.append(
            f"the reservation group is in {arn.group('region')} but the cluster is in {region}; a "
            "reservation is used only in its own region"
        )
    if capacity_type == "CAPACITY_BLOCK" and reservation is None:
        problems.append(
            "is required with capacity type CAPACITY_BLOCK: a Capacity Block is used through its "
            "reservation id (cr-...)"
        )
    elif capacity_type == "SPOT" and reservation is not None:
        problems.append(
            "capacity type SPOT cannot launch into a capacity reservation: a reservation holds "
            "On-Demand capacity; remove one of the two"
        )
    elif capacity_type == "CAPACITY_BLOCK" and arn is not None:
        problems.append(
            "capacity type CAPACITY_BLOCK needs the Capacity Block's reservation id (cr-...), not a "
            "reservation group: EKS's launch template for a Capacity Block targets its "
            "CapacityReservationId"
        )
    return problems


def autoscaling_findings(config: StackConfig, pool: ResolvedPool, path: Path) -> Findings:
    """An autoscaled node group: warn where the cluster autoscaler falls short (its tag limits: autoscaling_rules)."""
    bounds = pool.config.autoscaling
    warnings: list[str] = []
    if bounds is None:
        return Findings()
    if pool.mig is not None and pool.mig_strategy == "mixed":
        warnings.append(
            f"pool {pool.name}: with migStrategy mixed its nodes advertise nvidia.com/mig-* and no "
            "nvidia.com/gpu; the cluster autoscaler counts only nvidia.com/gpu, so a node labelled as a "
            "GPU node (k8s.amazonaws.com/accelerator) looks unready to it for ever, with GPU utilisation 0 "
            "for scale-down, and scale-ups stop past ok-total-unready-count (kubernetes/autoscaler#8095); "
            "gpupools sets no such label, so scale-down is judged on CPU and memory requests"
        )
    if config.cluster is not None and not config.cluster.create:
        warnings.append(
            f"pool {pool.name}: autoscaling {bounds.min_count}..{bounds.max_count} tags its Auto Scaling "
            "group for the cluster autoscaler, which the stack owning the existing cluster must run "
            "(gpupools:cluster.autoscaler.install there, discovering node groups by its cluster's tags)"
        )
    elif config.cluster is not None and not config.cluster.autoscaler.install:
        warnings.append(
            f"pool {pool.name}: autoscaling {bounds.min_count}..{bounds.max_count} tags its Auto Scaling "
            "group for the cluster autoscaler, but none is installed: set "
            "gpupools:cluster.autoscaler.install true or run your own"
        )
    return Findings(warnings=warnings)


AWS_RULES = CloudRules(
    cluster_problems=cluster_problems,
    pool_name_problem=pool_name_problem,
    pool_problems=pool_problems,
    autoscaling_findings=autoscaling_findings,
    template_tag_problems=aws_template_tag_problems,
    stack_findings=no_findings,
    software_problems=software_problems,
)
cloud_named("aws").attach(AWS_RULES)
