"""An AKS cluster to put GPU pools in: created with a small system pool, or an existing one looked up.

Either way it yields the kubeconfig (a secret) and a Kubernetes provider built from it, so the NVIDIA
charts and GPU pools can be added the same way to a new or an existing cluster.

A created cluster whose pools draw from capacity reservation groups gets a user-assigned identity with the
Contributor role on the resource group that holds each group (``capacity_reservation_group_ids``), as
aks-docs use-capacity-reservation-groups.md assigns it (``az role assignment create ... --role "Contributor"
--scope /subscriptions/<subscription-id>/resourceGroups/<resource-group-name>``): "System-assigned managed
identities don't work for this feature". Other created clusters keep the
system-assigned identity they always had, so upgrading gpupools changes no cluster that needs none.
"""

import base64
import hashlib
import uuid
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s
from pulumi_azure_native import authorization, containerservice, managedidentity, resources

from ..catalog.clouds import (
    AKS_OVERLAY_POD_CIDR,
    AKS_SYSTEM_POOL_SIZE,
    CONTRIBUTOR_ROLE_ID,
    SYSTEM_POOL_COUNT,
    SYSTEM_POOL_NAME,
    SYSTEM_POOL_OS_SKU,
)
from ..component_args.docstrings import documented
from ..component_args.azure import AksClusterArgsModel
from ..component_args.checking import check_args
from .aliases import without_sdk_aliases

TYPE_TOKEN = "gpupools:index:AksCluster"
# Pods per system node; with Azure CNI Overlay pod IPs come from the pod CIDR, not the VNet, so this costs no
# subnet addresses (AKS: Azure CNI Overlay allows up to 250).
DEFAULT_SYSTEM_POOL_MAX_PODS = 110
# AKS's own default pod CIDR for Azure CNI Overlay (learn.microsoft.com/azure/aks/azure-cni-overlay).
DEFAULT_POD_CIDR = AKS_OVERLAY_POD_CIDR


class AksClusterArgs(TypedDict):
    """Inputs of ``AksCluster``, each but ``create`` and the group id list also an output of another resource;
    ``create`` false uses the cluster ``name`` in ``resource_group_name``."""

    name: pulumi.Input[str]
    """Name of the AKS managed cluster."""
    resource_group_name: pulumi.Input[str]
    """Resource group of the cluster (created when ``create`` is true)."""
    location: NotRequired[pulumi.Input[str]]
    """Azure region, e.g. southcentralus; required when ``create`` is true."""
    create: NotRequired[bool]
    """Create the cluster (default true) or use an existing one."""
    kubernetes_version: NotRequired[pulumi.Input[str]]
    """Kubernetes minor version, e.g. "1.35"."""
    long_term_support: NotRequired[bool]
    """AKS long-term support: the Premium tier and the AKSLongTermSupport plan (created clusters; default false)."""
    system_pool_size: NotRequired[pulumi.Input[str]]
    """VM size of the system pool (default Standard_D4s_v5)."""
    system_pool_count: NotRequired[pulumi.Input[int]]
    """Nodes in the system pool (default 2)."""
    system_pool_max_pods: NotRequired[pulumi.Input[int]]
    """Pods per system node, 10..250 (default 110)."""
    pod_cidr: NotRequired[pulumi.Input[str]]
    """Pod address range of the Azure CNI Overlay network (default 10.244.0.0/16); must not overlap your VNets."""
    capacity_reservation_group_ids: NotRequired[list[pulumi.Input[str]]]
    (
        """Capacity reservation groups the cluster's pools draw from; with create true, the cluster gets a """
        """user-assigned identity with the Contributor role on each (system-assigned identities cannot use them)."""
    )
    tags: NotRequired[pulumi.Input[dict[str, str]]]
    """Azure tags for the resource group and cluster."""


@documented
class AksCluster(pulumi.ComponentResource):
    """An AKS cluster (new or existing) with its kubeconfig and a Kubernetes provider."""

    cluster_name: pulumi.Output[str]
    """Name of the AKS cluster."""
    resource_group_name: pulumi.Output[str]
    """Resource group holding the cluster."""
    kubeconfig: pulumi.Output[str]
    """User kubeconfig (secret)."""
    provider: k8s.Provider
    """A Kubernetes provider for the cluster, from its user kubeconfig."""

    def __init__(self, name: str, args: AksClusterArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register the AksCluster under ``name``; ``args`` is checked first (``ComponentArgsError`` names each bad
        key).

        :param name: the Pulumi resource name; children are named ``<name>-...``.
        :param args: ``AksClusterArgs``: a dict whose keys help() lists under Args below (an editor
            shows each key's docstring as it completes the keys).
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(AksClusterArgsModel, "AksCluster", name, args)
        super().__init__(TYPE_TOKEN, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        azure_child = pulumi.ResourceOptions(parent=self, transformations=[without_sdk_aliases])
        tags = args.get("tags") or {}
        # The role assignments that let the cluster use its capacity reservation groups: pools wait for them. Not a
        # class annotation, which would make it a component output in the multi-language schema.
        self.capacity_reservation_access: list[pulumi.Resource] = []
        if args.get("create", True):
            group = resources.ResourceGroup(
                f"{name}-rg",
                resource_group_name=args["resource_group_name"],
                location=args.get("location"),  # AksClusterArgsModel requires it when create is true
                tags=tags,
                opts=azure_child,
            )
            identity = self._identity(name, args, group, tags, azure_child)
            cluster = containerservice.ManagedCluster(
                f"{name}-aks",
                resource_name_=args["name"],
                resource_group_name=group.name,
                location=group.location,
                dns_prefix=args["name"],
                kubernetes_version=args.get("kubernetes_version"),
                # LTS (aks-docs long-term-support.md): "Enabling LTS requires moving your cluster to the Premium
                # tier and explicitly selecting the LTS support plan"; both together, or neither (the SDK default:
                # Free tier, KubernetesOfficial).
                **(
                    {
                        "sku": containerservice.ManagedClusterSKUArgs(
                            name=containerservice.ManagedClusterSKUName.BASE,
                            tier=containerservice.ManagedClusterSKUTier.PREMIUM,
                        ),
                        "support_plan": containerservice.KubernetesSupportPlan.AKS_LONG_TERM_SUPPORT,
                    }
                    if args.get("long_term_support")
                    else {}
                ),
                enable_rbac=True,
                identity=identity,
                # Azure CNI Overlay: pod IPs from a private CIDR, so GPU pools can run up to 250 pods per node
                # (MIG and time-sliced slices) without sizing a VNet for them.
                network_profile=containerservice.ContainerServiceNetworkProfileArgs(
                    network_plugin="azure",
                    network_plugin_mode="overlay",
                    pod_cidr=args.get("pod_cidr") or DEFAULT_POD_CIDR,
                ),
                agent_pool_profiles=[
                    containerservice.ManagedClusterAgentPoolProfileArgs(
                        name=SYSTEM_POOL_NAME,
                        mode="System",
                        vm_size=args.get("system_pool_size") or AKS_SYSTEM_POOL_SIZE,
                        count=args.get("system_pool_count") or SYSTEM_POOL_COUNT,
                        max_pods=args.get("system_pool_max_pods") or DEFAULT_SYSTEM_POOL_MAX_PODS,
                        os_type="Linux",
                        os_sku=SYSTEM_POOL_OS_SKU,
                        type="VirtualMachineScaleSets",
                    )
                ],
                tags=tags,
                # GPU pools are separate AgentPool resources; without this the cluster would try to remove them.
                opts=pulumi.ResourceOptions.merge(
                    azure_child, pulumi.ResourceOptions(ignore_changes=["agentPoolProfiles"])
                ),
            )
            self.cluster_name = cluster.name
            self.resource_group_name = group.name
        else:
            self.cluster_name = pulumi.Output.from_input(args["name"])
            self.resource_group_name = pulumi.Output.from_input(args["resource_group_name"])
        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=self.resource_group_name,
            resource_name=self.cluster_name,
            opts=pulumi.InvokeOptions(parent=self),
        )
        self.kubeconfig = pulumi.Output.secret(
            credentials.kubeconfigs[0].value.apply(lambda encoded: base64.b64decode(encoded).decode())
        )
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig, opts=child)
        self.register_outputs(
            {
                "clusterName": self.cluster_name,
                "resourceGroupName": self.resource_group_name,
                "kubeconfig": self.kubeconfig,
            }
        )

    def _identity(
        self,
        name: str,
        args: AksClusterArgs,
        group: resources.ResourceGroup,
        tags: pulumi.Input[dict[str, str]],
        opts: pulumi.ResourceOptions,
    ) -> containerservice.ManagedClusterIdentityArgs:
        """System-assigned, or, for capacity reservation groups, a user-assigned identity with Contributor on the
        resource group holding each group (use-capacity-reservation-groups.md's scope), once per resource group."""
        groups = args.get("capacity_reservation_group_ids") or []
        if not groups:
            return containerservice.ManagedClusterIdentityArgs(
                type=containerservice.ResourceIdentityType.SYSTEM_ASSIGNED
            )
        identity = managedidentity.UserAssignedIdentity(
            f"{name}-identity",
            resource_name_=pulumi.Output.concat(args["name"], "-control-plane"),
            resource_group_name=group.name,
            location=group.location,
            tags=tags,
            opts=opts,
        )
        for index, scope in enumerate(_resource_groups_of(groups)):
            self.capacity_reservation_access.append(
                authorization.RoleAssignment(
                    f"{name}-crg-{_key(scope, index)}",
                    # A role assignment's name is a GUID: one per cluster and resource group, stable across runs.
                    role_assignment_name=pulumi.Output.all(args["name"], scope).apply(
                        lambda parts: str(uuid.uuid5(uuid.NAMESPACE_URL, f"gpupools/{parts[0]}/{parts[1]}"))
                    ),
                    principal_id=identity.principal_id,
                    principal_type="ServicePrincipal",
                    role_definition_id=pulumi.Output.from_input(scope).apply(_contributor_in_subscription_of),
                    scope=scope,
                    # Same name for the same cluster and group: the old assignment must go before its successor comes.
                    opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(delete_before_replace=True)),
                )
            )
        return containerservice.ManagedClusterIdentityArgs(
            type=containerservice.ResourceIdentityType.USER_ASSIGNED, user_assigned_identities=[identity.id]
        )


def resource_group_of(group_id: str) -> str:
    """``/subscriptions/<s>/resourceGroups/<rg>`` of a capacity reservation group's id (case kept as given)."""
    return "/".join(group_id.split("/")[:5])


def _resource_groups_of(groups: list[pulumi.Input[str]]) -> list[pulumi.Input[str]]:
    """Each resource group once (Azure refuses a second identical role assignment); an output counts as its own."""
    scopes: list[pulumi.Input[str]] = []
    for group in groups:
        scope = (
            resource_group_of(group)
            if isinstance(group, str)
            else pulumi.Output.from_input(group).apply(resource_group_of)
        )
        if not isinstance(scope, str) or scope.lower() not in [s.lower() for s in scopes if isinstance(s, str)]:
            scopes.append(scope)
    return scopes


def _key(crg: pulumi.Input[str], index: int) -> str:
    """A resource name part that stays with the group, not its position: a hash of its id (else its position)."""
    return hashlib.sha256(crg.encode()).hexdigest()[:8] if isinstance(crg, str) else str(index)


def _contributor_in_subscription_of(group_id: str) -> str:
    """The Contributor role definition as ARM names it in the group's subscription (``/subscriptions/<id>/...``)."""
    subscription = group_id.split("/")[2]
    return f"/subscriptions/{subscription}/providers/Microsoft.Authorization/roleDefinitions/{CONTRIBUTOR_ROLE_ID}"
