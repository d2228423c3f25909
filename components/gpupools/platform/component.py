"""``GpuPlatform``: a whole gpupools stack as one component, for Python and, through the provider, every language.

Its args are the stack config one to one (``args.py``) and go through ``load_stack``, the same rules as
``gpupools check`` and the stack program; bad args raise one line per problem before anything registers.
Then it builds the cluster, the GPU pools and the NVIDIA software and smoke tests, importing only the
stack's cloud, and exposes what workloads need: kubeconfig, toleration and per-pool capacity.
"""

from typing import Any, Optional

import pulumi

from ..domain.capacity import stack_capacity
from ..domain.dra import classes_by_pool
from ..catalog.extras import require_extra
from ..catalog.installers import installer
from ..component_args.docstrings import documented
from ..component_args.fields import ComponentArgsError
from ..config.errors import ConfigError
from ..domain.stack import Stack
from ..resolve.stack_loader import load_stack
from ..domain.workloads import gpu_toleration, pool_node_selector, pool_tolerations
from . import dra_objects, nvidia
from .builders import builder
from .args import GpuPlatformArgs
from .inputs import Deferred, PlatformArgsError, args_problems, merged_problems, to_stack_config

TYPE_TOKEN = "gpupools:index:GpuPlatform"


@documented
class GpuPlatform(pulumi.ComponentResource):
    """An AKS or EKS cluster (new or existing) with MIG, time-sliced or MPS GPU pools and the NVIDIA software."""

    cloud: pulumi.Output[str]
    """azure or aws."""
    cluster_name: pulumi.Output[str]
    """Name of the cluster."""
    resource_group_name: pulumi.Output[Optional[str]]
    """azure: resource group of the cluster."""
    kubeconfig: pulumi.Output[str]
    """Kubeconfig of the cluster (secret)."""
    subnet_ids: pulumi.Output[Optional[list[str]]]
    """aws: the cluster's subnets, for a team stack's node groups on this cluster."""
    vpc_id: pulumi.Output[Optional[str]]
    """aws: the cluster's VPC."""
    node_role_arn: pulumi.Output[Optional[str]]
    """aws: the node role a created cluster admits (unset for an existing cluster: its owner admits roles)."""
    cluster_security_group_id: pulumi.Output[Optional[str]]
    """aws: the security group EKS created for the cluster, which managed nodes get."""
    karpenter: pulumi.Output[bool]
    """aws: whether Karpenter runs in the cluster (installed by this stack, or present on the existing cluster); a
    team stack says so as gpupools:cluster.karpenter.present."""
    gpu_toleration: pulumi.Output[dict[str, str]]
    """The toleration GPU pods need: {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}."""
    gpu_software: pulumi.Output[dict[str, str]]
    """{installer, chart, version, namespace, migStrategy} of the NVIDIA software."""
    resources_per_node: pulumi.Output[dict[str, dict[str, int]]]
    """Per pool: the GPU resources one node offers pods, e.g. {"mig1g": {"nvidia.com/gpu": 56}}."""
    resources_total: pulumi.Output[dict[str, dict[str, int]]]
    """Per pool: resources_per_node times the pool's nodes."""
    node_selectors: pulumi.Output[dict[str, dict[str, str]]]
    """Per pool: the node selector that puts a pod on that pool."""
    tolerations: pulumi.Output[dict[str, list[dict[str, str]]]]
    """Per pool: every toleration a pod needs there (gpu_toleration, plus AKS Spot's scalesetpriority taint)."""
    cloud_pool_names: pulumi.Output[dict[str, str]]
    """Per pool: the AKS agent pool or EKS node group name (a surge pool's changes with each generation)."""
    dra_classes: pulumi.Output[dict[str, list[dict[str, Optional[str]]]]]
    """installer dra-driver: per pool, each device kind's DeviceClass, ResourceClaimTemplate and its namespace."""

    def __init__(
        self,
        name: str,
        args: GpuPlatformArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
        *,
        adopt_stack_resources: bool = False,
        validated: Optional[Stack] = None,
    ) -> None:
        """Register the whole stack under ``name``; ``args`` is validated first, with the stack config's rules.

        :param name: the Pulumi resource name; children are named ``<name>-<cluster|pool|chart>`` so platforms
            can share a stack.
        :param args: ``GpuPlatformArgs``, the stack config in snake_case: a dict whose keys help() lists under Args
            below (an editor shows each key's docstring as it completes the keys).
        :param opts: Pulumi resource options (parent, provider, protect, ...).

        ``adopt_stack_resources`` is for the stack program: its children keep the names gpupools 0.1 gave them at
        the stack's root (the cluster's, each pool's, the installer's) and alias those, so no resource is replaced.
        ``validated`` is also the stack program's: the ``Stack`` it already validated, whose config ``args`` mirror,
        so the same config is not validated twice.
        """
        stack, deferred = (validated, Deferred()) if validated is not None else validated_stack(name, args)
        require_extra(stack.cloud, f"GpuPlatform {name!r} on {stack.cloud}")  # before anything registers
        super().__init__(TYPE_TOKEN, name, None, opts)
        for warning in stack.warnings:
            pulumi.log.warn(warning, resource=self)
        child = pulumi.ResourceOptions(
            parent=self, aliases=[pulumi.Alias(parent=pulumi.ROOT_STACK_RESOURCE)] if adopt_stack_resources else None
        )
        build = builder(stack.cloud).build  # the cloud's SDK loads here, for its cloud only
        prefix = "" if adopt_stack_resources else f"{name}-"
        cluster, pools = build(stack, deferred, prefix, child)
        software = nvidia.install(stack, cluster.provider, pools, prefix, child)
        nvidia.metrics(stack, cluster.provider, software, prefix, child)
        nvidia.smoke_tests(stack, cluster.provider, software, prefix, child)
        dra_objects.create(stack, cluster.provider, software, prefix, self)

        self.stack = stack
        self.cloud = pulumi.Output.from_input(stack.cloud)
        self.cluster_name = cluster.cluster_name
        self.resource_group_name = getattr(cluster, "resource_group_name", pulumi.Output.from_input(None))
        self.kubeconfig = cluster.kubeconfig
        # The links a team stack needs to add node groups to this cluster; only clusters that have them set them.
        none = pulumi.Output.from_input(None)
        self.subnet_ids = getattr(cluster, "subnet_ids", none)
        self.vpc_id = getattr(cluster, "vpc_id", none)
        self.node_role_arn = getattr(cluster, "node_role_arn", none)
        self.cluster_security_group_id = getattr(cluster, "cluster_security_group_id", none)
        karpenter = stack.config.cluster.karpenter
        self.karpenter = _known(karpenter.install or karpenter.present)
        self.gpu_toleration = _known(gpu_toleration())
        self.gpu_software = _known(software_summary(stack))
        self.resources_per_node, self.resources_total = _capacity(stack, deferred)
        self.node_selectors = _known({pool.name: pool_node_selector(pool) for pool in stack.pools})
        self.cloud_pool_names = _known({pool.name: pool.cloud_pool_name for pool in stack.pools})
        self.tolerations = _known({pool.name: pool_tolerations(pool) for pool in stack.pools})
        self.dra_classes = _known(classes_by_pool(stack))
        self.register_outputs(
            {
                "cloud": self.cloud,
                "clusterName": self.cluster_name,
                "resourceGroupName": self.resource_group_name,
                "kubeconfig": self.kubeconfig,
                "subnetIds": self.subnet_ids,
                "vpcId": self.vpc_id,
                "nodeRoleArn": self.node_role_arn,
                "clusterSecurityGroupId": self.cluster_security_group_id,
                "karpenter": self.karpenter,
                "gpuToleration": self.gpu_toleration,
                "gpuSoftware": self.gpu_software,
                "resourcesPerNode": self.resources_per_node,
                "resourcesTotal": self.resources_total,
                "nodeSelectors": self.node_selectors,
                "cloudPoolNames": self.cloud_pool_names,
                "tolerations": self.tolerations,
                "draClasses": self.dra_classes,
            }
        )


def validated_stack(name: Any, args: Any) -> tuple[Stack, Deferred]:
    """The stack the args describe, or ``ComponentArgsError`` naming each bad arg (nothing registered yet)."""
    if not isinstance(name, str) or not name:
        raise ComponentArgsError(
            "GpuPlatform", str(name), [f": the resource name must be a non-empty str, got {name!r}"]
        )
    try:
        raw, deferred, own = to_stack_config(args)
    except PlatformArgsError as error:
        raise ComponentArgsError("GpuPlatform", name, [f": {message}" for _, message in error.problems]) from None
    try:
        stack, rules = load_stack(raw), []
    except ConfigError as error:
        # No stack without a problem to name: a ConfigError that listed none is still refused, not left unbound.
        stack, rules = None, args_problems(error.problems, args) or [("", "the args do not describe a stack")]
    problems = merged_problems(own, rules)
    if problems or stack is None:
        raise ComponentArgsError("GpuPlatform", name, [f".{path}: {message}" for path, message in problems])
    return stack, deferred


def software_summary(stack: Stack) -> dict[str, str]:
    software = stack.config.gpu_software
    return {
        "installer": software.installer,
        "chart": installer(software.installer).chart.name,
        "version": software.resolved_version,
        "namespace": software.resolved_namespace,
        "migStrategy": software.mig_strategy,
    }


def _capacity(stack: Stack, deferred: Deferred) -> tuple[pulumi.Output, pulumi.Output]:
    """Per-pool capacity; the totals of a pool whose count is an output are known once the count is."""
    capacity = stack_capacity(stack.pools)
    per_node = {pool.pool: dict(pool.per_node) for pool in capacity}
    if not any(deferred.pool_has(index, "count") for index in range(len(capacity))):
        return _known(per_node), _known({pool.pool: dict(pool.total) for pool in capacity})
    totals = {
        pool.pool: pulumi.Output.from_input(deferred.pool_value(index, "count", pool.nodes)).apply(
            lambda nodes, per=dict(pool.per_node): {name: count * int(nodes) for name, count in per.items()}
        )
        for index, pool in enumerate(capacity)
    }
    return pulumi.Output.from_input(per_node), pulumi.Output.all(**totals) if totals else pulumi.Output.from_input({})


def _known(value: Any) -> pulumi.Output:
    """An output of a plain value (no output inside) in two outputs: ``Output.from_input`` makes one per key and
    item, deeply, which at 50 pools is a fifth of the plan's outputs."""
    return pulumi.Output.from_input(None).apply(lambda _: value)
