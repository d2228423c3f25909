"""An EKS cluster to put GPU node groups in: created (CPU system node group, OIDC provider) or an existing one.

An existing cluster is read with ``aws.eks.get_cluster`` and a kubeconfig that authenticates through
``aws eks get-token``, so the NVIDIA charts install the same way on both. Either way the component outputs
the links other components take as strings (node role ARN, subnets, OIDC provider, cluster security
group), so it can be wired to ``EksGpuNodeGroup`` and ``ClusterAutoscaler`` from any language.
"""

import json
from typing import NotRequired, Optional, TypedDict, cast

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks
import pulumi_kubernetes as k8s

from ..catalog.clouds import EKS_SYSTEM_NODE_SIZE, SYSTEM_POOL_COUNT, SYSTEM_POOL_NAME
from ..catalog.labels import POOL_LABEL
from ..component_args.docstrings import documented
from ..component_args.aws import EksClusterArgsModel
from ..component_args.checking import check_args
from .node_role import node_role

TYPE_TOKEN = "gpupools:index:EksCluster"


class EksClusterArgs(TypedDict):
    """Inputs of ``EksCluster``; all but ``create`` may be outputs of other resources."""

    name: pulumi.Input[str]
    """Name of the EKS cluster."""
    create: NotRequired[bool]
    """Create the cluster (default true) or use an existing one."""
    kubernetes_version: NotRequired[pulumi.Input[str]]
    """Kubernetes minor version, e.g. "1.33"."""
    system_node_size: NotRequired[pulumi.Input[str]]
    """Instance type of the CPU system node group (default m6i.large)."""
    system_node_count: NotRequired[pulumi.Input[int]]
    """Nodes in the system node group (default 2)."""
    subnet_ids: NotRequired[pulumi.Input[list[str]]]
    """Subnets for the cluster and node groups (default: the default VPC's)."""
    vpc_id: NotRequired[pulumi.Input[str]]
    """The VPC of subnet_ids, where pulumi-eks creates the cluster and node security groups (needs subnet_ids)."""
    tags: NotRequired[pulumi.Input[dict[str, str]]]
    """AWS tags."""


@documented
class EksCluster(pulumi.ComponentResource):
    """An EKS cluster (new or existing) with its kubeconfig and a Kubernetes provider."""

    cluster_name: pulumi.Output[str]
    """Name of the EKS cluster."""
    kubeconfig: pulumi.Output[str]
    """Kubeconfig (secret)."""
    node_role_arn: pulumi.Output[Optional[str]]
    (
        """ARN of the node role the created cluster admits (for EksGpuNodeGroup's node_role_arn); unset for an """
        """existing cluster."""
    )
    subnet_ids: pulumi.Output[list[str]]
    """The cluster's subnets (for EksGpuNodeGroup's subnet_ids)."""
    vpc_id: pulumi.Output[str]
    """The cluster's VPC (for a team stack's node groups and security group rules)."""
    oidc_provider_arn: pulumi.Output[str]
    (
        """ARN of the cluster's IAM OIDC provider (for ClusterAutoscaler); for an existing cluster, the ARN IAM """
        """gives a provider for its issuer, which must exist."""
    )
    oidc_provider_url: pulumi.Output[str]
    (
        """The cluster's OIDC issuer URL (for ClusterAutoscaler); without https:// on a created cluster, as """
        """pulumi-eks gives it."""
    )
    cluster_security_group_id: pulumi.Output[str]
    """The security group EKS created for the cluster, which managed nodes get (e.g. for EFA launch templates)."""
    node_role: Optional[aws.iam.Role]
    """The node role of a created cluster (Python only, for EksGpuNodeGroup's node_role); None for an existing one."""
    provider: k8s.Provider
    """A Kubernetes provider for the cluster, from its kubeconfig."""

    def __init__(self, name: str, args: EksClusterArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register the EksCluster under ``name``; ``args`` is checked first (``ComponentArgsError`` names each bad
        key).

        :param name: the Pulumi resource name; children are named ``<name>-...``.
        :param args: ``EksClusterArgs``: a dict whose keys help() lists under Args below (an editor
            shows each key's docstring as it completes the keys).
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(EksClusterArgsModel, "EksCluster", name, args)
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
            count = args.get("system_node_count") or SYSTEM_POOL_COUNT
            eks.ManagedNodeGroup(
                f"{name}-system",
                cluster=self.cluster,
                node_role=self.node_role,
                instance_types=[args.get("system_node_size") or EKS_SYSTEM_NODE_SIZE],
                scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=count, min_size=count, max_size=count),
                subnet_ids=subnets,
                labels={POOL_LABEL: SYSTEM_POOL_NAME},
                tags=tags,
                opts=child,
            )
            self.cluster_name = pulumi.Output.from_input(args["name"])  # set explicitly above, known at plan time
            kubeconfig = self.cluster.kubeconfig_json
            vpc_config = self.cluster.eks_cluster.vpc_config
            self.node_role_arn = self.node_role.arn
            self.oidc_provider_arn = self.cluster.oidc_provider_arn
            self.oidc_provider_url = self.cluster.oidc_provider_url
        else:
            self.node_role = None
            existing = aws.eks.get_cluster_output(name=args["name"], opts=pulumi.InvokeOptions(parent=self))
            # The name given, as on a created cluster: known while planning even when the lookup's answer is not
            # (an invoke whose input is another stack's output resolves only at deploy in a preview).
            self.cluster_name = pulumi.Output.from_input(args["name"])
            kubeconfig = pulumi.Output.all(
                existing.name,
                existing.endpoint,
                existing.certificate_authorities.apply(lambda cas: cas[0].data),
            ).apply(lambda parts: _exec_kubeconfig(*parts))
            vpc_config = existing.vpc_config
            # Nodes of an existing cluster use roles its owner admitted: none is known here.
            self.node_role_arn = pulumi.Output.from_input(None)
            issuer = existing.identities.apply(lambda found: found[0].oidcs[0].issuer if found else None)
            self.oidc_provider_url = cast(pulumi.Output[str], issuer)
            self.oidc_provider_arn = cast(
                pulumi.Output[str],
                pulumi.Output.all(existing.arn, issuer).apply(lambda parts: _oidc_provider_arn(*parts)),
            )
        # EKS reports every cluster's VPC config and OIDC issuer; the SDK types them Optional, and the None
        # branches here and above only pass on what offline mocks leave out (a plan, not a deployment).
        self.subnet_ids = cast(pulumi.Output[list[str]], vpc_config.apply(lambda vpc: vpc.subnet_ids if vpc else None))
        self.vpc_id = cast(pulumi.Output[str], vpc_config.apply(lambda vpc: vpc.vpc_id if vpc else None))
        self.cluster_security_group_id = cast(
            pulumi.Output[str], vpc_config.apply(lambda vpc: vpc.cluster_security_group_id if vpc else None)
        )
        self.kubeconfig = pulumi.Output.secret(kubeconfig)
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig, opts=child)
        self.register_outputs(
            {
                "clusterName": self.cluster_name,
                "kubeconfig": self.kubeconfig,
                "nodeRoleArn": self.node_role_arn,
                "subnetIds": self.subnet_ids,
                "vpcId": self.vpc_id,
                "oidcProviderArn": self.oidc_provider_arn,
                "oidcProviderUrl": self.oidc_provider_url,
                "clusterSecurityGroupId": self.cluster_security_group_id,
            }
        )


def _oidc_provider_arn(cluster_arn: str | None, issuer: str | None) -> str | None:
    """IAM names an OIDC provider ``arn:<partition>:iam::<account>:oidc-provider/<issuer without https://>``;
    partition and account are the cluster's (``arn:<partition>:eks:<region>:<account>:cluster/<name>``)."""
    if not cluster_arn or not issuer:
        return None
    partition, account = cluster_arn.split(":")[1], cluster_arn.split(":")[4]
    return f"arn:{partition}:iam::{account}:oidc-provider/{issuer.removeprefix('https://')}"


def _exec_kubeconfig(cluster: str, endpoint: str, certificate_authority: str) -> str:
    """A kubeconfig that gets tokens from ``aws eks get-token``: no long-lived credential is stored."""
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": cluster,
            "clusters": [
                {"name": cluster, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority}}
            ],
            "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": cluster}}],
            "users": [
                {
                    "name": cluster,
                    "user": {
                        "exec": {
                            "apiVersion": "client.authentication.k8s.io/v1beta1",
                            "command": "aws",
                            "args": ["eks", "get-token", "--cluster-name", cluster, "--output", "json"],
                        }
                    },
                }
            ],
        }
    )
