"""The EC2 launch template a GPU node group needs for reservations, Capacity Blocks and EFA.

EKS managed node groups take these settings only through a launch template, and then refuse some
node group fields that the template must carry instead (disk size; the instance type for a Capacity
Block). References: EKS "Customize managed nodes with launch templates", "Create a managed node group
with Capacity Blocks for ML", "Run machine learning training on Amazon EKS with Elastic Fabric Adapter".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import pulumi
import pulumi_aws as aws

from ..component_args.aws import reservation_target_key

# The volume a node's disk size applies to: the root volume of the Amazon Linux NVIDIA AMI, the only AMI type the
# node groups take (pulumi-eks's managed node group launch templates use the same device).
ROOT_DEVICE = "/dev/xvda"


@dataclass(frozen=True)
class LaunchTemplateSpec:
    """What goes into one node group's launch template."""

    instance_type: str
    capacity_type: Optional[str] = None
    capacity_reservation: pulumi.Input[str] | None = None
    disk_size_gb: Optional[int] = None
    efa_interfaces: int = 0

    @property
    def capacity_block(self) -> bool:
        return self.capacity_type == "CAPACITY_BLOCK"

    @property
    def needed(self) -> bool:
        """Only these settings need a template; without them EKS's default template is kept."""
        return bool(self.capacity_reservation or self.capacity_block or self.efa_interfaces)


def gpu_launch_template(
    name: str,
    spec: LaunchTemplateSpec,
    vpc_config: pulumi.Output[Any] | None,
    parent: pulumi.Resource,
    tags: dict[str, str],
) -> aws.ec2.LaunchTemplate:
    """The template (and, for EFA, its cluster placement group and security group), children of ``parent``.

    ``vpc_config`` is the cluster's (``vpc_id``, ``cluster_security_group_id``), needed only for EFA: a pulumi-eks
    Cluster's ``eks_cluster.vpc_config`` or ``aws.eks.get_cluster_output(...).vpc_config``.
    """
    child = pulumi.ResourceOptions(parent=parent)
    placement = network_interfaces = None
    if spec.efa_interfaces:
        if vpc_config is None:
            raise ValueError(f"{name}: EFA interfaces need the cluster's vpc_config (its security group and VPC)")
        group = aws.ec2.PlacementGroup(f"{name}-pg", strategy="cluster", tags=tags, opts=child)
        placement = aws.ec2.LaunchTemplatePlacementArgs(group_name=group.name)
        network_interfaces = _efa_interfaces(name, spec.efa_interfaces, vpc_config, child, tags)
    return aws.ec2.LaunchTemplate(
        f"{name}-lt",
        # A Capacity Block's template names the instance type, and the node group then must not.
        instance_type=spec.instance_type if spec.capacity_block else None,
        instance_market_options=aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type="capacity-block")
        if spec.capacity_block
        else None,
        capacity_reservation_specification=_reservation(spec.capacity_reservation),
        block_device_mappings=[
            aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                device_name=ROOT_DEVICE,
                ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                    volume_size=spec.disk_size_gb, volume_type="gp3", delete_on_termination="true"
                ),
            )
        ]
        if spec.disk_size_gb
        else None,
        # What EKS's own template sets: IMDSv2, and a hop limit of 2 so pods can reach the metadata service.
        metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
            http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=2
        ),
        placement=placement,
        network_interfaces=network_interfaces,
        tags=tags,
        opts=child,
    )


def _reservation(
    reservation: pulumi.Input[str] | None,
) -> aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs | None:
    if not reservation:
        return None
    # An output (known only at deploy time) is taken for a reservation id; group ARNs are given as plain text.
    key = reservation_target_key(reservation) if isinstance(reservation, str) else "capacity_reservation_id"
    if key is None:  # EksGpuNodeGroupArgsModel refuses such text before anything is built
        raise ValueError(f"capacity_reservation {reservation!r} is neither an ODCR id nor a resource group ARN")
    target = aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(**{key: reservation})
    return aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(capacity_reservation_target=target)


def _efa_interfaces(
    name: str, count: int, vpc: pulumi.Output[Any], child: pulumi.ResourceOptions, tags: dict[str, str]
) -> list[aws.ec2.LaunchTemplateNetworkInterfaceArgs]:
    """One EFA per network card; the first is the primary interface (device index 0), the others index 1.

    Security groups in a template replace the cluster security group EKS would add, so the interfaces
    carry it explicitly, beside a group that allows all traffic within itself, as EFA requires.
    """
    efa_group = aws.ec2.SecurityGroup(
        f"{name}-efa",
        description="EFA: all traffic between the interfaces of this group",
        vpc_id=vpc.vpc_id,
        ingress=[aws.ec2.SecurityGroupIngressArgs(protocol="-1", from_port=0, to_port=0, self=True)],
        egress=[aws.ec2.SecurityGroupEgressArgs(protocol="-1", from_port=0, to_port=0, self=True)],
        tags=tags,
        opts=child,
    )
    groups = [vpc.cluster_security_group_id, efa_group.id]
    return [
        aws.ec2.LaunchTemplateNetworkInterfaceArgs(
            device_index=0 if card == 0 else 1,
            network_card_index=card,
            interface_type="efa",
            security_groups=groups,
            delete_on_termination="true",
        )
        for card in range(count)
    ]
