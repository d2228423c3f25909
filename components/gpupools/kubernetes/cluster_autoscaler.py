"""The Kubernetes cluster autoscaler on EKS: its IRSA role and the pinned ``cluster-autoscaler`` Helm release.

It finds the GPU node groups by their Auto Scaling group tags (``gpupools.autoscaling``), scales them from
zero with the node-template tags, and may only change the size of groups tagged for this cluster (the IAM
condition in ``aws/cluster_autoscaler_iam.py``). Inputs are plain strings or outputs (cluster name, region,
OIDC provider ARN and URL), so the component works alone from any language. Pass the Kubernetes and AWS
providers in ``opts.providers``. On AKS the managed autoscaler is used instead (pool ``min_count``/``max_count``).
"""

from typing import NotRequired, Optional, TypedDict

import pulumi

from ..catalog.chart_refs import (
    CLUSTER_AUTOSCALER,
    CLUSTER_AUTOSCALER_NAMESPACE,
    CLUSTER_AUTOSCALER_SERVICE_ACCOUNT,
    DEFAULT_EXPANDER,
)
from ..charts.cluster_autoscaler import cluster_autoscaler_values
from ..component_args.docstrings import documented
from ..component_args.checking import check_args
from ..component_args.kubernetes import ClusterAutoscalerArgsModel
from ..catalog.names import CLUSTER_NAMESPACES
from .release import pinned_release, release_name_and_version

TYPE_TOKEN = "gpupools:index:ClusterAutoscaler"


class ClusterAutoscalerArgs(TypedDict):
    """Inputs of ``ClusterAutoscaler``."""

    cluster_name: pulumi.Input[str]
    """Name of the EKS cluster (auto-discovery tag k8s.io/cluster-autoscaler/<name>)."""
    region: pulumi.Input[str]
    """AWS region of the cluster, e.g. us-east-1."""
    oidc_provider_arn: pulumi.Input[str]
    """ARN of the cluster's IAM OIDC provider (IRSA)."""
    oidc_provider_url: pulumi.Input[str]
    """Issuer URL of that provider, e.g. https://oidc.eks.us-east-1.amazonaws.com/id/<id>."""
    version: NotRequired[str]
    """Exact cluster-autoscaler chart version (default 9.59.0, cluster-autoscaler 1.35.0)."""
    namespace: NotRequired[str]
    """Namespace of the release (default kube-system)."""
    service_account: NotRequired[str]
    """Service account name the role trusts (default cluster-autoscaler)."""
    expander: NotRequired[str]
    """least-waste (default), most-pods, random or priority."""
    priorities: NotRequired[dict[str, list[str]]]
    """With expander priority: priority (a whole number as text) -> node group name regexes."""
    scale_down_utilization_threshold: NotRequired[float]
    """CPU/memory utilisation below which a node may be removed (autoscaler default 0.5)."""
    scale_down_gpu_utilization_threshold: NotRequired[float]
    """GPU utilisation below which a GPU node may be removed (autoscaler default 0.5)."""
    tags: NotRequired[dict[str, str]]
    """AWS tags of the IAM role."""
    kubernetes_version: NotRequired[str]
    """The cluster's Kubernetes version (major.minor): the autoscaler image of the same minor (default: the chart's)."""
    dynamic_resource_allocation: NotRequired[bool]
    """The cluster's GPUs are DRA devices: below cluster-autoscaler 1.35 turn its DRA handling on (default false)."""


@documented
class ClusterAutoscaler(pulumi.ComponentResource):
    """An IRSA role with a least-privilege policy and the cluster-autoscaler chart, pinned."""

    role_arn: pulumi.Output[str]
    """ARN of the IAM role the autoscaler's service account assumes."""
    release_name: pulumi.Output[str]
    """Helm release name."""
    chart_version: pulumi.Output[str]
    """Installed chart version."""

    def __init__(self, name: str, args: ClusterAutoscalerArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register the ClusterAutoscaler under ``name``; ``args`` is checked first (``ComponentArgsError`` names each
        bad key).

        :param name: the Pulumi resource name; children are named ``<name>-...``.
        :param args: ``ClusterAutoscalerArgs``: a dict whose keys help() lists under Args below (an editor
            shows each key's docstring as it completes the keys).
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(ClusterAutoscalerArgsModel, "ClusterAutoscaler", name, args)
        super().__init__(TYPE_TOKEN, name, None, opts)
        # Imported here so ``gpupools.kubernetes`` keeps importing without the aws extra.
        from ..aws.cluster_autoscaler_iam import cluster_autoscaler_role

        namespace = args.get("namespace") or CLUSTER_AUTOSCALER_NAMESPACE
        service_account = args.get("service_account") or CLUSTER_AUTOSCALER_SERVICE_ACCOUNT
        role = cluster_autoscaler_role(
            name,
            cluster=args["cluster_name"],
            region=args["region"],
            oidc_provider_arn=args["oidc_provider_arn"],
            oidc_provider_url=args["oidc_provider_url"],
            namespace=namespace,
            service_account=service_account,
            parent=self,
            tags=args.get("tags"),
        )
        values = cluster_autoscaler_values(
            args["cluster_name"],
            args["region"],
            role.arn,
            service_account=service_account,
            expander=args.get("expander") or DEFAULT_EXPANDER,
            priorities=args.get("priorities"),
            scale_down_utilization_threshold=args.get("scale_down_utilization_threshold"),
            scale_down_gpu_utilization_threshold=args.get("scale_down_gpu_utilization_threshold"),
            kubernetes_version=args.get("kubernetes_version"),
            dynamic_resource_allocation=bool(args.get("dynamic_resource_allocation")),
        )
        # The values carry the role's ARN, so the release waits for the role.
        release, _ = pinned_release(
            self,
            name,
            CLUSTER_AUTOSCALER,
            {
                "namespace": namespace,
                "values": values,
                "version": args.get("version") or CLUSTER_AUTOSCALER.default_version,
            },
            create_namespace=namespace not in CLUSTER_NAMESPACES,
        )  # never kube-system and the like
        self.role_arn = role.arn
        self.release_name, self.chart_version = release_name_and_version(release)
        self.register_outputs(
            {"roleArn": self.role_arn, "releaseName": self.release_name, "chartVersion": self.chart_version}
        )
