"""An AKS cluster to put GPU pools in: created with a small system pool, or an existing one looked up.

Either way it yields the kubeconfig (a secret) and a Kubernetes provider built from it, so the NVIDIA
charts and GPU pools can be added the same way to a new or an existing cluster.
"""


import base64
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s
from pulumi_azure_native import containerservice, resources

from .aliases import without_sdk_aliases

TYPE_TOKEN = "gpupools:index:AksCluster"


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

    def __init__(self, name: str, args: AksClusterArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
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
                agent_pool_profiles=[containerservice.ManagedClusterAgentPoolProfileArgs(
                    name="system",
                    mode="System",
                    vm_size=args.get("system_pool_size") or "Standard_D4s_v5",
                    count=args.get("system_pool_count") or 2,
                    os_type="Linux",
                    os_sku="Ubuntu",
                    type="VirtualMachineScaleSets",
                )],
                tags=tags,
                # GPU pools are separate AgentPool resources; without this the cluster would try to remove them.
                opts=pulumi.ResourceOptions.merge(azure_child, pulumi.ResourceOptions(ignore_changes=["agentPoolProfiles"])),
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
            "clusterName": self.cluster_name, "resourceGroupName": self.resource_group_name, "kubeconfig": self.kubeconfig,
        })
