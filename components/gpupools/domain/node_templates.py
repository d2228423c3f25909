"""Scale-from-zero hints for the cluster autoscaler: the node template a GPU pool's future nodes will match.

With no node to look at, the cluster autoscaler builds a template node from tags on the node group. It
knows ``nvidia.com/gpu`` from the instance type at best, never MIG slices or ``.shared`` replicas, so a pod
asking for ``nvidia.com/mig-1g.5gb`` stays Pending on a pool at zero (kubernetes/autoscaler#8095). These tags
tell it what the plan already knows: the usable slices per node (``capacity.pool_capacity(...).per_node``,
never a second computation), the labels the pool's pods select on, and the taints.

Tag formats (cluster-autoscaler 1.35.0, ``cloudprovider/aws/README.md`` and ``cloudprovider/azure/README.md``):

* AWS, on the Auto Scaling group: ``k8s.io/cluster-autoscaler/node-template/resources/<name>`` = quantity,
  ``.../label/<key>`` = value, ``.../taint/<key>`` = ``value:Effect``; auto-discovery by the tag keys
  ``k8s.io/cluster-autoscaler/enabled`` and ``k8s.io/cluster-autoscaler/<cluster>``.
* Azure, on the VMSS (AKS copies node pool tags there): ``k8s.io_cluster-autoscaler_node-template_<kind>_<name>``
  with ``/`` written ``_`` and ``_`` written ``~2`` (``azure_template.go``: labels and taints decode ``~2`` back
  to ``_``; resources decode both ``_`` and ``~2`` to ``/``, so a resource name with ``_`` cannot be written).

Pure: no Pulumi. The rules (``resolve.autoscaling_rules``) use it to refuse pools over a tag limit; the program
to set the tags; the CLI to show, per autoscaled pool, whether it can scale from zero and why not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.dra_driver import AUTOSCALER_DRA_FLAG, AUTOSCALER_DRA_ON_MINOR
from ..catalog.labels import GPU_RESOURCE, Taint
from ..catalog.names import MAX_TAGS
from .capacity import advertised_resources, pool_capacity
from .pools import ResolvedPool
from .stack import Stack

AWS_PREFIX = "k8s.io/cluster-autoscaler/node-template/"
AZURE_PREFIX = "k8s.io_cluster-autoscaler_node-template_"
AWS_DISCOVERY_ENABLED = "k8s.io/cluster-autoscaler/enabled"
# Tags EKS itself puts on a managed node group's Auto Scaling group and that count towards AWS's 50:
# eks:cluster-name, eks:nodegroup-name (CA aws README) and kubernetes.io/cluster/<name>. Ours: kept spare.
EKS_OWN_ASG_TAGS = 3
AWS_TEMPLATE_TAG_BUDGET = MAX_TAGS - EKS_OWN_ASG_TAGS

# Why a pool may or may not start from zero nodes; cited in the plan and in docs/sources.md.
AKS_MIG_FROM_ZERO = (
    "the AKS cluster autoscaler knows only nvidia.com/gpu from the VM size and cannot scale a "
    "pool from zero for {resources} (Azure/AKS#5161, kubernetes/autoscaler#8095)"
)
# DRA pools: the autoscaler's AWS and Azure providers build template nodes with no ResourceSlices (their
# TemplateNodeInfo passes nil slices to framework.NewNodeInfo); once a node runs its real slices are copied.
DRA_FROM_ZERO = (
    "DRA pools cannot scale from zero: the cluster autoscaler's {provider} provider builds template "
    "nodes with no ResourceSlices, so a pending pod whose ResourceClaim needs a gpu.nvidia.com device "
    "never triggers a scale-up of an empty pool (kubernetes/autoscaler#7799, #10277)"
)
AKS_TEMPLATE_UNDOCUMENTED = (
    "AKS documents no support for the node-template tags set on the pool, so its "
    "managed autoscaler may not know the label {labels} pods wait for"
)


def aws_discovery_key(cluster: str) -> str:
    return f"k8s.io/cluster-autoscaler/{cluster}"


@dataclass(frozen=True)
class NodeTemplate:
    """What a node of the pool will offer: allocatable slices, labels pods select on, taints."""

    resources: Mapping[str, int]
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]


def pool_node_template(pool: ResolvedPool) -> NodeTemplate:
    """The template of one pool: the plan's usable slices per node, the pool's labels plus those its nodes
    gain once ready (the MIG state workloads wait for), and every taint the nodes carry, the cloud's included.
    A DRA pool's devices are ResourceSlice devices, which no node-template tag can describe: none are listed."""
    per_node = {} if pool.dra else pool_capacity(pool).per_node
    labels = {**pool.labels, **pool.readiness_labels}
    return NodeTemplate(dict(sorted(per_node.items())), dict(sorted(labels.items())), tuple(pool.node_taints))


def aws_asg_tags(template: NodeTemplate, cluster: str) -> dict[str, str]:
    """Auto Scaling group tags: this cluster's auto-discovery keys and the node template."""
    tags = {AWS_DISCOVERY_ENABLED: "true", aws_discovery_key(cluster): "owned"}
    tags.update({f"{AWS_PREFIX}resources/{name}": str(count) for name, count in template.resources.items()})
    # The AWS provider starts every template from the instance type's GPU count (aws_manager.go
    # buildNodeFromTemplate) and lets resource tags override it: a pool that advertises no whole GPUs (MIG mixed,
    # renamed sharing) must say 0, or pods asking for nvidia.com/gpu scale it up and never fit.
    tags.setdefault(f"{AWS_PREFIX}resources/{GPU_RESOURCE}", "0")
    tags.update({f"{AWS_PREFIX}label/{key}": value for key, value in template.labels.items()})
    tags.update({f"{AWS_PREFIX}taint/{taint.key}": f"{taint.value}:{taint.effect}" for taint in template.taints})
    return tags


def azure_vmss_tags(template: NodeTemplate) -> dict[str, str]:
    """Node pool tags (AKS puts them on the VMSS) in the Azure provider's underscore encoding."""
    tags = {
        f"{AZURE_PREFIX}resources_{_azure_resource(name)}": str(count) for name, count in template.resources.items()
    }
    tags.update({f"{AZURE_PREFIX}label_{_azure_key(key)}": value for key, value in template.labels.items()})
    tags.update(
        {f"{AZURE_PREFIX}taint_{_azure_key(taint.key)}": f"{taint.value}:{taint.effect}" for taint in template.taints}
    )
    return tags


# --- What the program passes to the components ------------------------------------------------------------------


def eks_autoscaler_tags(stack: Stack, pool: ResolvedPool) -> dict[str, str]:
    """``EksGpuNodeGroup``'s ``autoscaler_tags``: the ASG tags of an autoscaled pool, empty for a fixed one."""
    if pool.config.autoscaling is None:
        return {}
    return aws_asg_tags(pool_node_template(pool), stack.config.cluster.name)


def aks_autoscaler_tags(stack: Stack, pool: ResolvedPool) -> dict[str, str]:
    """``AksGpuPool``'s ``autoscaler_tags`` (merged over the stack's ``tags``): empty for a fixed pool."""
    if pool.config.autoscaling is None:
        return {}
    return azure_vmss_tags(pool_node_template(pool))


def cluster_autoscaler_args(stack: Stack) -> dict[str, Any] | None:
    """The plain ``ClusterAutoscaler`` args of ``gpupools:cluster.autoscaler`` (None unless ``install``); the
    program adds ``oidc_provider_arn``, ``oidc_provider_url`` (outputs of the cluster) and ``tags``."""
    cluster = stack.config.cluster
    settings = cluster.autoscaler
    if not cloud_named(stack.cloud).cluster_autoscaler_chart or not settings.install:
        return None
    args: dict[str, Any] = {
        "cluster_name": cluster.name,
        "region": cluster.region,
        "version": settings.version,
        "namespace": settings.namespace,
        "expander": settings.expander,
    }
    if stack.config.gpu_software.chosen_installer.uses_dra:
        args["dynamic_resource_allocation"] = True  # below 1.35 the flag is off by default (charts.cluster_autoscaler)
    if settings.priorities:
        args["priorities"] = {key: list(patterns) for key, patterns in settings.priorities.items()}
    for key in ("scale_down_utilization_threshold", "scale_down_gpu_utilization_threshold"):
        if getattr(settings, key) is not None:
            args[key] = getattr(settings, key)
    return args


def aks_zero_problem(pool: ResolvedPool) -> str | None:
    """Why an AKS pool cannot start from zero nodes, or None (whole ``nvidia.com/gpu`` only, no readiness label).

    DRA pools are not judged here: no provider builds their template's ResourceSlices, which the plan warns of."""
    others = [] if pool.dra else sorted(name for name in advertised_resources(pool) if name != GPU_RESOURCE)
    if others:
        return AKS_MIG_FROM_ZERO.format(resources=", ".join(others))
    if pool.readiness_labels:
        labels = ", ".join(f"{key}={value}" for key, value in pool.readiness_labels.items())
        return AKS_TEMPLATE_UNDOCUMENTED.format(labels=labels)
    return None


# --- What the plan shows ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AutoscaledPool:
    """One autoscaled pool as the plan shows it."""

    pool: str
    cloud: str
    min_count: int
    max_count: int
    template: NodeTemplate
    from_zero: bool
    why: str

    def to_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "cloud": self.cloud,
            "minCount": self.min_count,
            "maxCount": self.max_count,
            "templateResources": dict(self.template.resources),
            "templateLabels": dict(self.template.labels),
            "templateTaints": [str(taint) for taint in self.template.taints],
            "scaleFromZero": self.from_zero,
            "why": self.why,
        }

    def line(self) -> str:
        """One line for the text plan: bounds, template resources, and whether (and why) it scales from zero."""
        resources = ", ".join(f"{count}x {name}" for name, count in self.template.resources.items())
        return (
            f"{self.pool}: {self.min_count}..{self.max_count} nodes, template {resources}; "
            f"{'scales' if self.from_zero else 'does not scale'} from zero: {self.why}"
        )


def autoscaled_pools(stack: Stack) -> list[AutoscaledPool]:
    """Every pool with ``autoscaling``, its node template and whether it can scale up from zero nodes."""
    rows = []
    for pool in stack.pools:
        bounds = pool.config.autoscaling
        if bounds is None:
            continue
        template = pool_node_template(pool)
        from_zero, why = (
            _dra_from_zero(pool, stack.config.cluster.kubernetes_version)
            if stack.config.gpu_software.chosen_installer.uses_dra
            else _from_zero(pool, template)
        )
        rows.append(AutoscaledPool(pool.name, pool.cloud, bounds.min_count, bounds.max_count, template, from_zero, why))
    return rows


def autoscaling_summary(stack: Stack) -> list[dict[str, Any]]:
    """JSON-able rows of ``autoscaled_pools`` for ``gpupools plan --json``."""
    return [row.to_json() for row in autoscaled_pools(stack)]


def plan_lines(stack: Stack) -> list[str]:
    """One line per autoscaled pool for the text plan."""
    return [row.line() for row in autoscaled_pools(stack)]


@dataclass(frozen=True)
class ScaleFromZero:
    """A cloud's facet: whether an autoscaled pool (and its node template) can scale up from zero nodes, and why."""

    capability: ClassVar[str] = "autoscaling from zero"
    from_zero: Callable[[ResolvedPool, NodeTemplate], tuple[bool, str]]


def _from_zero(pool: ResolvedPool, template: NodeTemplate) -> tuple[bool, str]:
    return cloud_named(pool.cloud).facet(ScaleFromZero).from_zero(pool, template)


def _dra_from_zero(pool: ResolvedPool, kubernetes_version: str) -> tuple[bool, str]:
    """A DRA pool never scales from zero; with a node up, the autoscaler copies its slices if its DRA handling is on:
    from 1.35 always, below only with ``--enable-dynamic-resource-allocation``, which gpupools sets on the
    autoscaler it installs and cannot set on a managed one."""
    bounds = pool.config.autoscaling
    assert bounds is not None
    cloud = cloud_named(pool.cloud)
    why = DRA_FROM_ZERO.format(provider=cloud.display_name)
    if bounds.min_count == 0:
        return False, why
    if cloud.cluster_autoscaler_chart or int(kubernetes_version.split(".")[1]) >= AUTOSCALER_DRA_ON_MINOR:
        return False, f"minCount {bounds.min_count} keeps a node up, whose slices the autoscaler copies; {why}"
    return False, (
        f"minCount {bounds.min_count} keeps a node up, but the managed autoscaler below 1.35 copies its slices only "
        f"with --{AUTOSCALER_DRA_FLAG} (default false); {why}"
    )


def _azure_key(key: str) -> str:
    return key.replace("_", "~2").replace("/", "_")


def _azure_resource(name: str) -> str:
    if "_" in name:
        raise ValueError(f"resource {name!r} has '_', which the Azure autoscaler decodes as '/'")
    return name.replace("/", "_")
