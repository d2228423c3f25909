"""An EKS cluster to put GPU node groups in: created (CPU system node group, OIDC provider) or an existing one.

An existing cluster is read with ``aws.eks.get_cluster`` and a kubeconfig that authenticates through
``aws eks get-token``, so the NVIDIA charts install the same way on both.
"""


import json
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks
import pulumi_kubernetes as k8s

from ..component_args import EksClusterArgsModel, check_args
from .node_role import node_role

TYPE_TOKEN = "gpupools:index:EksCluster"


class EksClusterArgs(TypedDict):
    """Inputs of ``EksCluster``."""

    name: str
    """Name of the EKS cluster."""
    create: NotRequired[bool]
    """Create the cluster (default true) or use an existing one."""
    kubernetes_version: NotRequired[str]
    """Kubernetes minor version, e.g. "1.33"."""
    system_node_size: NotRequired[str]
    """Instance type of the CPU system node group (default m6i.large)."""
    system_node_count: NotRequired[int]
    """Nodes in the system node group (default 2)."""
    subnet_ids: NotRequired[list[str]]
    """Subnets for the cluster and node groups (default: the default VPC's)."""
    vpc_id: NotRequired[str]
    """The VPC of subnet_ids, where pulumi-eks creates the cluster and node security groups (needs subnet_ids)."""
    tags: NotRequired[dict[str, str]]
    """AWS tags."""


class EksCluster(pulumi.ComponentResource):
    """An EKS cluster (new or existing) with its kubeconfig and a Kubernetes provider."""

    cluster_name: pulumi.Output[str]
    """Name of the EKS cluster."""
    kubeconfig: pulumi.Output[str]
    """Kubeconfig (secret)."""

    def __init__(self, name: str, args: EksClusterArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        check_args(EksClusterArgsModel, "EksCluster", name, args)
        super().__init__(TYPE_TOKEN, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = args.get("tags") or {}
        self.cluster: eks.Cluster | None = None
        if args.get("create", True):
            self.node_role = node_role(f"{name}-nodes", self, tags)
            subnets = args.get("subnet_ids") or None
            self.cluster = eks.Cluster(
                f"{name}-eks",
                name=args["name"],
                version=args.get("kubernetes_version"),
                skip_default_node_group=True,
                create_oidc_provider=True,
                authentication_mode=eks.AuthenticationMode.API,
                instance_roles=[self.node_role],
                vpc_id=args.get("vpc_id"),
                subnet_ids=subnets,
                tags=tags,
                opts=child,
            )
            count = args.get("system_node_count") or 2
            eks.ManagedNodeGroup(
                f"{name}-system",
                cluster=self.cluster,
                node_role=self.node_role,
                instance_types=[args.get("system_node_size") or "m6i.large"],
                scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=count, min_size=count, max_size=count),
                subnet_ids=subnets,
                labels={"gpupools.io/pool": "system"},
                tags=tags,
                opts=child,
            )
            self.cluster_name = pulumi.Output.from_input(args["name"])  # set explicitly above, known at plan time
            kubeconfig = self.cluster.kubeconfig_json
        else:
            self.node_role = None
            existing = aws.eks.get_cluster_output(name=args["name"], opts=pulumi.InvokeOptions(parent=self))
            self.cluster_name = existing.name
            kubeconfig = pulumi.Output.all(
                existing.name, existing.endpoint, existing.certificate_authorities.apply(lambda cas: cas[0].data),
            ).apply(lambda parts: _exec_kubeconfig(*parts))
        self.kubeconfig = pulumi.Output.secret(kubeconfig)
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig, opts=child)
        self.register_outputs({"clusterName": self.cluster_name, "kubeconfig": self.kubeconfig})


def _exec_kubeconfig(cluster: str, endpoint: str, certificate_authority: str) -> str:
    """A kubeconfig that gets tokens from ``aws eks get-token``: no long-lived credential is stored."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": cluster,
        "clusters": [{"name": cluster, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority}}],
        "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": cluster}}],
        "users": [{"name": cluster, "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "aws",
            "args": ["eks", "get-token", "--cluster-name", cluster, "--output", "json"],
        }}}],
    })
