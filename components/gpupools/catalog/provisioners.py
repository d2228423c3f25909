"""The one table of node provisioners (``gpuPools[].provisioner``): who creates a pool's nodes.

A provisioner is one ``NodeProvisioner`` object with its facts here; the layers above attach their behaviour to
it as typed facets (``Capability``, as installers do: the cloud objects a pool becomes in ``domain``, the stack
rules in ``resolve``, the Pulumi resources in ``platform``), so no module compares a provisioner's name. Which
clouds offer which provisioner is the cloud's fact (``Cloud.node_provisioners``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, get_args

from ..errors import GpupoolsError
from .facets import Faceted

# The stack file's spelling (a Literal so the schema and pydantic's messages list the names).
ProvisionerName = Literal["nodeGroup", "karpenter"]
DEFAULT_PROVISIONER = "nodeGroup"


class UnsupportedByProvisioner(GpupoolsError, LookupError):
    """A layer asked a node provisioner for a capability it was never given."""


@dataclass(eq=False)
class NodeProvisioner(Faceted):
    """One way a pool's nodes come to be: its facts, and the facets the higher layers attach."""

    kind: ClassVar[str] = "node provisioner"
    unsupported: ClassVar[type[GpupoolsError]] = UnsupportedByProvisioner

    display_name: str
    # The pool is a fixed node count (``count``, optionally ``autoscaling`` by the cluster autoscaler); otherwise
    # nodes come and go with pending pods, up to ``maxCount``, and the pool takes neither of those two.
    fixed_node_count: bool
    # The controller that must run in the cluster for the pool to get nodes (None: the cloud's own API).
    controller: str | None


# A managed node group (EKS) or agent pool (AKS): what every pool was before provisioners existed.
NODE_GROUP = NodeProvisioner("nodeGroup", "node group", fixed_node_count=True, controller=None)

# Karpenter's well-known node labels (karpenter docs v1.14 concepts/scheduling.md, "Well-Known Labels"; read
# 2026-11-28 at 1d927085dd81): the ones every node it launches carries, plus the instance facts gpupools reads.
KARPENTER_NODEPOOL_LABEL = "karpenter.sh/nodepool"
KARPENTER_CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
KARPENTER_NODECLASS_LABEL = "karpenter.k8s.aws/ec2nodeclass"
KARPENTER_INSTANCE_FAMILY_LABEL = "karpenter.k8s.aws/instance-family"
KARPENTER_INSTANCE_GPU_COUNT_LABEL = "karpenter.k8s.aws/instance-gpu-count"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
KARPENTER = NodeProvisioner(
    "karpenter",
    "Karpenter NodePool",
    fixed_node_count=False,
    controller="Karpenter",
)

PROVISIONERS: dict[str, NodeProvisioner] = {item.name: item for item in (NODE_GROUP, KARPENTER)}
assert set(get_args(ProvisionerName)) == set(PROVISIONERS)


def provisioner_named(name: str) -> NodeProvisioner:
    """The provisioner of a ``gpuPools[].provisioner`` value."""
    try:
        return PROVISIONERS[name]
    except KeyError:
        raise ValueError(f"unknown node provisioner {name!r}; allowed: {', '.join(PROVISIONERS)}") from None
