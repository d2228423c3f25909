"""One Karpenter pool in the cluster: its EC2NodeClass, NodePool and, where its nodes advertise what EC2 does not
say, its NodeOverlay, as Kubernetes custom resources (built by ``domain/karpenter_objects.py``).

Karpenter must run in the cluster (``Karpenter``, or the cluster owner's). Pass the Kubernetes provider in
``opts.providers``. Changing what a NodePool's nodes carry (its template: labels such as ``nvidia.com/mig.config``,
taints, requirements) is drift: Karpenter replaces those nodes itself, launching each replacement before it drains
the old node, within the pool's disruption budget.
"""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..component_args.checking import check_args
from ..component_args.docstrings import documented
from ..component_args.kubernetes import KarpenterPoolArgsModel
from ..domain.karpenter_objects import NODECLASS_API, NODECLASS_KIND, NODEOVERLAY_API, NODEPOOL_API

TYPE_TOKEN = "gpupools:index:KarpenterPool"


class KarpenterPoolArgs(TypedDict):
    """Inputs of ``KarpenterPool``."""

    node_pool_name: str
    """Name of the NodePool, its EC2NodeClass and NodeOverlay (the karpenter.sh/nodepool label of its nodes)."""
    node_class: pulumi.Input[dict[str, Any]]
    """The EC2NodeClass object (apiVersion karpenter.k8s.aws/v1): its metadata and spec are used."""
    node_pool: pulumi.Input[dict[str, Any]]
    """The NodePool object (apiVersion karpenter.sh/v1)."""
    node_overlay: NotRequired[pulumi.Input[dict[str, Any]]]
    """The NodeOverlay object (apiVersion karpenter.sh/v1alpha1), for pools advertising MIG slices or shared GPUs."""


@documented
class KarpenterPool(pulumi.ComponentResource):
    """A GPU pool Karpenter provisions: an EC2NodeClass, a NodePool and maybe a NodeOverlay."""

    node_pool_name: pulumi.Output[str]
    """Name of the NodePool (the karpenter.sh/nodepool label of its nodes)."""

    def __init__(self, name: str, args: KarpenterPoolArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register the pool's objects under ``name``; ``args`` is checked first.

        :param name: the Pulumi resource name; children are named ``<name>-<kind>``.
        :param args: ``KarpenterPoolArgs``: a dict whose keys help() lists under Args below.
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(KarpenterPoolArgsModel, "KarpenterPool", name, args)
        super().__init__(TYPE_TOKEN, name, None, opts)
        pool = args["node_pool_name"]
        node_class = _custom_resource(
            f"{name}-nodeclass", (NODECLASS_API, NODECLASS_KIND, pool), args["node_class"], [], self
        )
        node_pool = _custom_resource(
            f"{name}-nodepool", (NODEPOOL_API, "NodePool", pool), args["node_pool"], [node_class], self
        )
        overlay = args.get("node_overlay")
        if overlay is not None:
            _custom_resource(f"{name}-overlay", (NODEOVERLAY_API, "NodeOverlay", pool), overlay, [node_pool], self)
        self.node_pool_name = pulumi.Output.from_input(args["node_pool_name"])
        self.register_outputs({"nodePoolName": self.node_pool_name})


def _custom_resource(
    name: str,
    type_: tuple[str, str, str],
    obj: pulumi.Input[dict[str, Any]],
    after: list[pulumi.Resource],
    parent: pulumi.Resource,
) -> k8s.apiextensions.CustomResource:
    """The object as a custom resource of ``type_`` (apiVersion, kind and name: known as the program runs, so the
    type and name show in a preview even where the spec waits for the cluster)."""
    # A plain object keeps each output inside it as such, so what is known shows in a preview.
    spec = obj["spec"] if isinstance(obj, dict) else pulumi.Output.from_input(obj).apply(lambda o: o["spec"])
    return k8s.apiextensions.CustomResource(
        name,
        api_version=type_[0],
        kind=type_[1],
        metadata={"name": type_[2]},
        spec=spec,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=after),
    )
