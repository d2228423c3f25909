"""Karpenter on EKS: its node role (admitted by an ``EC2_LINUX`` access entry), its controller role through EKS Pod
Identity with the controller policy of ``aws/karpenter_iam.py``, the interruption queue, and the pinned chart.

Inputs are plain strings or outputs (the cluster's name and region), so the component works alone from any
language. Pass the Kubernetes and AWS providers in ``opts.providers``. The NodePools it serves are each a
``KarpenterPool`` (``kubernetes/karpenter_pool.py``).
"""

import json
from typing import NotRequired, Optional, TypedDict

import pulumi

from ..catalog.chart_refs import KARPENTER, KARPENTER_NAMESPACE, KARPENTER_SERVICE_ACCOUNT
from ..charts.karpenter import karpenter_values
from ..component_args.checking import check_args
from ..component_args.docstrings import documented
from ..component_args.kubernetes import KarpenterArgsModel
from .release import pinned_release, release_name_and_version

TYPE_TOKEN = "gpupools:index:Karpenter"
POD_IDENTITY_AGENT = "eks-pod-identity-agent"  # the EKS add-on that hands pods their role (EKS Pod Identity)


class KarpenterArgs(TypedDict):
    """Inputs of ``Karpenter``."""

    cluster_name: pulumi.Input[str]
    """Name of the EKS cluster: the controller policy's tag scope, the queue's name and settings.clusterName."""
    region: pulumi.Input[str]
    """AWS region of the cluster, e.g. us-east-1."""
    node_overlay: NotRequired[bool]
    """Turn the NodeOverlay feature gate on (alpha, off by default): for pools whose nodes advertise MIG slices or
    shared GPUs."""
    version: NotRequired[str]
    """Exact Karpenter chart version (default 1.14.1)."""
    pod_identity_agent: NotRequired[bool]
    """Install the eks-pod-identity-agent add-on the controller role needs (default true)."""
    tags: NotRequired[dict[str, str]]
    """AWS tags of the roles, queue and rules."""


@documented
class Karpenter(pulumi.ComponentResource):
    """Karpenter's IAM, interruption queue and chart, on the cluster's system pool."""

    node_role_name: pulumi.Output[str]
    """Name of the node role every EC2NodeClass names."""
    node_role_arn: pulumi.Output[str]
    """ARN of that role."""
    controller_role_arn: pulumi.Output[str]
    """ARN of the role the controller's service account gets through Pod Identity."""
    interruption_queue: pulumi.Output[str]
    """Name of the SQS interruption queue (the chart's settings.interruptionQueue)."""
    release_name: pulumi.Output[str]
    """Helm release name."""
    chart_version: pulumi.Output[str]
    """Installed chart version."""

    def __init__(self, name: str, args: KarpenterArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register Karpenter under ``name``; ``args`` is checked first (``ComponentArgsError`` names each bad key).

        :param name: the Pulumi resource name; children are named ``<name>-...``.
        :param args: ``KarpenterArgs``: a dict whose keys help() lists under Args below.
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(KarpenterArgsModel, "Karpenter", name, args)
        super().__init__(TYPE_TOKEN, name, None, opts)
        # Imported here so ``gpupools.kubernetes`` keeps importing without the aws extra.
        import pulumi_aws as aws

        from ..aws.karpenter_iam import (
            NODE_POLICY_NAMES,
            arn_parts,
            controller_policy,
            node_policy_arns,
            pod_identity_trust,
        )
        from ..aws.karpenter_queue import interruption_queue
        from ..aws.node_role import EC2_ASSUME_ROLE

        tags = args.get("tags") or {}
        child = pulumi.ResourceOptions(parent=self)
        cluster, region = args["cluster_name"], args["region"]
        # The same EC2 trust as the node groups' roles (aws/node_role.py).
        node_role = aws.iam.Role(f"{name}-node-role", assume_role_policy=EC2_ASSUME_ROLE, tags=tags, opts=child)
        policy_arns = node_role.arn.apply(lambda arn: node_policy_arns(arn_parts(arn)[0]))
        for index, _ in enumerate(NODE_POLICY_NAMES):
            aws.iam.RolePolicyAttachment(
                f"{name}-node-policy-{index}",
                role=node_role.name,
                policy_arn=policy_arns.apply(lambda arns, i=index: arns[i]),
                opts=pulumi.ResourceOptions(parent=node_role),
            )
        aws.eks.AccessEntry(
            f"{name}-node-access", cluster_name=cluster, principal_arn=node_role.arn, type="EC2_LINUX", opts=child
        )
        queue = interruption_queue(name, cluster, self, tags)
        controller = aws.iam.Role(
            f"{name}-controller-role", assume_role_policy=json.dumps(pod_identity_trust()), tags=tags, opts=child
        )
        policy = pulumi.Output.all(cluster, region, node_role.arn, queue.arn).apply(
            lambda parts: json.dumps(controller_policy(parts[0], parts[1], *arn_parts(parts[2]), parts[2], parts[3]))
        )
        aws.iam.RolePolicy(
            f"{name}-controller-policy",
            role=controller.name,
            policy=policy,
            opts=pulumi.ResourceOptions(parent=controller),
        )
        if args.get("pod_identity_agent", True):
            aws.eks.Addon(f"{name}-pod-identity", cluster_name=cluster, addon_name=POD_IDENTITY_AGENT, opts=child)
        # The controller's pods get the role as they start; the chart's service account has this fixed name.
        aws.eks.PodIdentityAssociation(
            f"{name}-pod-identity-association",
            cluster_name=cluster,
            namespace=KARPENTER_NAMESPACE,
            service_account=KARPENTER_SERVICE_ACCOUNT,
            role_arn=controller.arn,
            opts=child,
        )
        values = karpenter_values(cluster, queue.name, bool(args.get("node_overlay")))
        release, _ = pinned_release(
            self,
            name,
            KARPENTER,
            {
                "namespace": KARPENTER_NAMESPACE,
                "values": values,
                "version": args.get("version") or KARPENTER.default_version,
            },
            create_namespace=False,  # kube-system, as the getting-started guide installs it
        )
        self.node_role_name = node_role.name
        self.node_role_arn = node_role.arn
        self.controller_role_arn = controller.arn
        self.interruption_queue = queue.name
        self.release_name, self.chart_version = release_name_and_version(release)
        self.register_outputs(
            {
                "nodeRoleName": self.node_role_name,
                "nodeRoleArn": self.node_role_arn,
                "controllerRoleArn": self.controller_role_arn,
                "interruptionQueue": self.interruption_queue,
                "releaseName": self.release_name,
                "chartVersion": self.chart_version,
            }
        )
