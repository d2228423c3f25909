"""An AKS cluster to put GPU pools in: created with a small system pool, or an existing one looked up.

Either way it yields the kubeconfig (a secret) and a Kubernetes provider built from it, so the NVIDIA
charts and GPU pools can be added the same way to a new or an existing cluster.
"""


import base64
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s
from pulumi_azure_native import containerservice, resources

from ..catalog.clouds import AKS_OVERLAY_POD_CIDR
from ..component_args.azure import AksClusterArgsModel
from ..component_args.checking import check_args
from .aliases import without_sdk_aliases

TYPE_TOKEN = "gpupools:index:AksCluster"
DEFAULT_SYSTEM_POOL_SIZE = "Standard_D4s_v5"
DEFAULT_SYSTEM_POOL_COUNT = 2
# Pods per system node; with Azure CNI Overlay pod IPs come from the pod CIDR, not the VNet, so this costs no
# subnet addresses (AKS: Azure CNI Overlay allows up to 250).
DEFAULT_SYSTEM_POOL_MAX_PODS = 110
# AKS's own default pod CIDR for Azure CNI Overlay (learn.microsoft.com/azure/aks/azure-cni-overlay).
DEFAULT_POD_CIDR = AKS_OVERLAY_POD_CIDR


class AksClusterArgs(TypedDict):
    """Inputs of ``AksCluster``; ``create`` false uses the cluster ``name`` in ``resource_group_name``."""

    name: str
    """Name of the AKS managed cluster."""
    resource_group_name: str
    """Resource group of the cluster (created when ``create`` is true)."""
    location: NotRequired[str]
    """Azure region, e.g. southcentralus; required when ``create`` is true."""
    create: NotRequired[bool]
    """Create the cluster (default true) or use an existing one."""
    kubernetes_version: NotRequired[str]
    """Kubernetes minor version, e.g. "1.33"."""
    system_pool_size: NotRequired[str]
    """VM size of the system pool (default Standard_D4s_v5)."""
    system_pool_count: NotRequired[int]
    """Nodes in the system pool (default 2)."""
    system_pool_max_pods: NotRequired[int]
    """Pods per system node, 10..250 (default 110)."""
    pod_cidr: NotRequired[str]
    """Pod address range of the Azure CNI Overlay network (default 10.244.0.0/16); must not overlap your VNets."""
    tags: NotRequired[dict[str, str]]
    """Azure tags for the resource group and cluster."""


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
        :param args: ``AksClusterArgs`` (each key documented there). Required: name, resource_group_name. Optional:
            location, create, kubernetes_version, system_pool_size, system_pool_count, system_pool_max_pods,
            pod_cidr, tags.
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        check_args(AksClusterArgsModel, "AksCluster", name, args)
        super().__init__(TYPE_TOKEN, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        azure_child = pulumi.ResourceOptions(parent=self, transformations=[without_sdk_aliases])
        tags = args.get("tags") or {}
        if args.get("create", True):
            group = resources.ResourceGroup(
                f"{name}-rg", resource_group_name=args["resource_group_name"], location=args["location"], tags=tags,
                opts=azure_child,
            )
            cluster = containerservice.ManagedCluster(
                f"{name}-aks",
                resource_name_=args["name"],
                resource_group_name=group.name,
                location=group.location,
                dns_prefix=args["name"],
                kubernetes_version=args.get("kubernetes_version"),
                enable_rbac=True,
                identity=containerservice.ManagedClusterIdentityArgs(type="SystemAssigned"),
                # Azure CNI Overlay: pod IPs from a private CIDR, so GPU pools can run up to 250 pods per node
                # (MIG and time-sliced slices) without sizing a VNet for them.
                network_profile=containerservice.ContainerServiceNetworkProfileArgs(
                    network_plugin="azure",
                    network_plugin_mode="overlay",
                    pod_cidr=args.get("pod_cidr") or DEFAULT_POD_CIDR,
                ),
                agent_pool_profiles=[containerservice.ManagedClusterAgentPoolProfileArgs(
                    name="system",
                    mode="System",
                    vm_size=args.get("system_pool_size") or DEFAULT_SYSTEM_POOL_SIZE,
                    count=args.get("system_pool_count") or DEFAULT_SYSTEM_POOL_COUNT,
                    max_pods=args.get("system_pool_max_pods") or DEFAULT_SYSTEM_POOL_MAX_PODS,
                    os_type="Linux",
                    os_sku="Ubuntu",
                    type="VirtualMachineScaleSets",
                )],
                tags=tags,
                # GPU pools are separate AgentPool resources; without this the cluster would try to remove them.
                opts=pulumi.ResourceOptions.merge(
                    azure_child, pulumi.ResourceOptions(ignore_changes=["agentPoolProfiles"])),
            )
            self.cluster_name = cluster.name
            self.resource_group_name = group.name
        else:
            self.cluster_name = pulumi.Output.from_input(args["name"])
            self.resource_group_name = pulumi.Output.from_input(args["resource_group_name"])
        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=self.resource_group_name, resource_name=self.cluster_name,
            opts=pulumi.InvokeOptions(parent=self),
        )
        self.kubeconfig = pulumi.Output.secret(
            credentials.kubeconfigs[0].value.apply(lambda encoded: base64.b64decode(encoded).decode())
        )
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig, opts=child)
        self.register_outputs({
            "clusterName": self.cluster_name, "resourceGroupName": self.resource_group_name,
            "kubeconfig": self.kubeconfig,
        })
