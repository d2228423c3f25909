"""Which node pool settings the clouds cannot change in place: one table per cloud, keyed by wire name.

A change to one of these fields makes the cloud reject the update (AKS) or the provider replace the
node group (EKS), so it means new nodes. ``AksGpuPool`` declares the AKS list as ``replace_on_changes``;
the plan can read the same tables to tell a capacity change that recreates nodes from one that does
not. Pure data, importable without Pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class FixedAtCreation:
    """A setting fixed when the pool is created, and the published statement that says so."""

    why: str
    source: str


_AKS_NODE_POOLS = "https://learn.microsoft.com/azure/aks/create-node-pools#limitations"
_AKS_SPOT = "https://learn.microsoft.com/azure/aks/spot-node-pool#limitations"

# Wire names of ``azure-native:containerservice:AgentPool`` inputs (the SDK's camelCase, e.g. ``osSKU``).
# Not listed on purpose: ``osSKU`` (AKS migrates the OS SKU in place, `az aks nodepool update --os-sku`,
# https://learn.microsoft.com/azure/aks/upgrade-os-version), ``capacityReservationGroupID`` (AKS can
# associate a reservation group with an existing pool, `az aks nodepool update --crg-id`, with a rolling
# update of zonal pools, https://learn.microsoft.com/azure/aks/use-capacity-reservation-groups), count,
# autoscaler bounds, labels, taints and tags.
AKS_AGENT_POOL: Mapping[str, FixedAtCreation] = {
    "vmSize": FixedAtCreation("the VM size of a node pool can't change after creation", _AKS_NODE_POOLS),
    "maxPods": FixedAtCreation("the max pods setting of a node pool can't change after creation", _AKS_NODE_POOLS),
    "availabilityZones": FixedAtCreation(
        "the availability zones of a node pool can't change after creation",
        "https://learn.microsoft.com/azure/aks/reliability-availability-zones-configure",
    ),
    "scaleSetPriority": FixedAtCreation("ScaleSetPriority can't change after creation", _AKS_SPOT),
    "spotMaxPrice": FixedAtCreation("SpotMaxPrice can't change after creation", _AKS_SPOT),
    "scaleSetEvictionPolicy": FixedAtCreation(
        "priority and eviction-policy can only be set during node pool creation",
        _AKS_SPOT,
    ),
    "gpuInstanceProfile": FixedAtCreation(
        "the applied GPU instance profile can't change after node pool creation",
        "https://learn.microsoft.com/azure/aks/gpu-multi-instance",
    ),
    "gpuProfile": FixedAtCreation(
        "the GPU driver choice is an option of `az aks nodepool add` only, not of `update`",
        "https://learn.microsoft.com/cli/azure/aks/nodepool#az-aks-nodepool-update",
    ),
}

_EKS_UPDATE_CONFIG = "https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupConfig.html"

# Wire names of ``aws:eks/nodeGroup:NodeGroup`` inputs. EKS's UpdateNodegroupConfig changes only labels,
# taints, scaling, update and repair settings; UpdateNodegroupVersion changes the Kubernetes version,
# AMI release and launch template version. The AWS provider replaces the node group for the rest
# itself, so the components set no ``replace_on_changes`` on EKS; this table is for the plan.
EKS_NODE_GROUP: Mapping[str, FixedAtCreation] = {
    "instanceTypes": FixedAtCreation("not an UpdateNodegroupConfig field", _EKS_UPDATE_CONFIG),
    "capacityType": FixedAtCreation("not an UpdateNodegroupConfig field", _EKS_UPDATE_CONFIG),
    "amiType": FixedAtCreation("not an UpdateNodegroupConfig field", _EKS_UPDATE_CONFIG),
    "diskSize": FixedAtCreation("not an UpdateNodegroupConfig field", _EKS_UPDATE_CONFIG),
    "subnetIds": FixedAtCreation("not an UpdateNodegroupConfig field", _EKS_UPDATE_CONFIG),
    "nodeRoleArn": FixedAtCreation("not an UpdateNodegroupConfig field", _EKS_UPDATE_CONFIG),
    "launchTemplate.id": FixedAtCreation(
        "UpdateNodegroupVersion takes a new version of the same launch template, not another template",
        "https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupVersion.html",
    ),
}


def replace_on_changes(table: Mapping[str, FixedAtCreation]) -> list[str]:
    """The table's wire names, sorted: what a resource's ``replace_on_changes`` option takes."""
    return sorted(table)
