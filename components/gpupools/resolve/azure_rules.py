"""Rules only AKS imposes: names, OS SKUs, Spot, zones and capacity reservation groups.

Each refusal names its source in ``docs/sources.md``; those marked "ours" there are our judgment.
"""

from __future__ import annotations

import math
from typing import Callable

from ..catalog.instances import InstanceSize
from ..catalog.clouds import (
    AKS_OVERLAY_NODE_PREFIX,
    AKS_OVERLAY_POD_CIDR,
    AZURE_LINUX_REFUSED_GPUS,
    AZURE_LINUX_SKUS,
    DEFAULT_OS_SKU,
    OS_SKUS,
    REFUSED_OS_SKUS,
    SYSTEM_POOL_OS_SKU,
)
from ..config.errors import Findings, Problem, field_path
from ..config.models import GpuPoolConfig, StackConfig
from ..catalog.labels import GPU_RESOURCE
from ..domain.capacity import advertised_resources
from ..domain.node_templates import aks_zero_problem
from ..domain.pools import ResolvedPool
from ..catalog.names import (
    AKS_DNS_PREFIX,
    AKS_POOL_NAME,
    AZURE_CAPACITY_RESERVATION_GROUP_ID,
    AZURE_LOCATION,
    AZURE_RESOURCE_GROUP,
)

from ..catalog.cloud import PoolNaming
from ..catalog.cloud_registry import cloud as cloud_named
from .autoscaling_rules import azure_template_tag_problems
from .reservation_rules import reservation_findings
from .cloud_rules import CloudRules

Path = Callable[..., str]


def os_sku(pool: GpuPoolConfig) -> str:
    return pool.os_sku or DEFAULT_OS_SKU


def cluster_problems(config: StackConfig) -> list[Problem]:
    cluster, problems = config.cluster, []
    path = lambda key: field_path("cluster", key)  # noqa: E731
    if cluster.create and not AKS_DNS_PREFIX.fullmatch(cluster.name):
        problems.append(
            Problem(
                path("name"),
                f"'{cluster.name}' cannot be the AKS dnsPrefix; allowed: 1..54 letters, "
                "digits and hyphens, starting and ending with a letter or digit",
            )
        )
    if not cluster.resource_group:
        problems.append(Problem(path("resourceGroup"), "is required on azure"))
    elif not AZURE_RESOURCE_GROUP.fullmatch(cluster.resource_group):
        problems.append(
            Problem(
                path("resourceGroup"),
                f"'{cluster.resource_group}' is not an Azure resource group "
                "name; allowed: 1..90 letters, digits, '_', '-', '.', "
                "'(' and ')', not ending in '.'",
            )
        )
    if cluster.create and not cluster.location:
        problems.append(Problem(path("location"), "is required on azure when create is true"))
    elif cluster.location and not AZURE_LOCATION.fullmatch(cluster.location):
        problems.append(
            Problem(
                path("location"),
                f"'{cluster.location}' is not an Azure location name; allowed: its "
                "programmatic name, lowercase letters and digits, e.g. "
                "southcentralus",
            )
        )
    if "autoscaler" in cluster.model_fields_set and (
        cluster.autoscaler.install or cluster.autoscaler.model_fields_set - {"install"}
    ):
        problems.append(
            Problem(
                path("autoscaler"),
                "is for aws; AKS runs its own managed cluster autoscaler, which "
                "each pool's autoscaling {minCount, maxCount} turns on",
            )
        )
    aws_only = (
        ("region", cluster.region),
        ("vpcId", cluster.vpc_id),
        ("subnetIds", cluster.subnet_ids),
        ("nodeRoleArn", cluster.node_role_arn),
    )
    for key, value in aws_only:
        if value:
            problems.append(Problem(path(key), "is for aws; on azure use location (the cluster's network is AKS's)"))
    return problems


def pool_name_problem(index: int, name: str) -> Problem | None:
    why = aks_pool_name_problem(name)
    return Problem(field_path("gpuPools", index, "name"), why) if why else None


def aks_pool_name_problem(name: str) -> str | None:
    """An AKS agent pool name, not the system pool's (the config's pool names and ``AksGpuPool``'s ``pool_name``)."""
    if not AKS_POOL_NAME.fullmatch(name):
        return (
            f"'{name[:80]}' is not a valid AKS pool name; allowed: lowercase letters and digits, starting with a "
            "letter, at most 12 characters"
        )
    if name in cloud_named("azure").facet(PoolNaming).reserved:
        return f"'{name}' is the name of the cluster's system pool"
    return None


def pool_problems(config: StackConfig, pool: GpuPoolConfig, size: InstanceSize, path: Path) -> Findings:
    held = reservation_findings(
        pool,
        path,
        "capacityReservationGroupId",
        pool.capacity_reservation_group_id is not None,
        launches_beyond=True,
        block=False,
    )
    return Findings(_os_problems(pool, size, path) + _capacity_problems(pool, path) + held.problems, held.warnings)


def _os_problems(pool: GpuPoolConfig, size: InstanceSize, path: Path) -> list[Problem]:
    sku = pool.os_sku
    if sku is None:
        return []
    if sku in REFUSED_OS_SKUS:
        return [Problem(path("osSku"), f"'{sku}' is refused: {REFUSED_OS_SKUS[sku]}; allowed: {', '.join(OS_SKUS)}")]
    if sku not in OS_SKUS:
        return [Problem(path("osSku"), f"'{sku}' is not an AKS OS SKU for GPU pools; allowed: {', '.join(OS_SKUS)}")]
    if sku in AZURE_LINUX_SKUS and size.gpu.name in AZURE_LINUX_REFUSED_GPUS:
        return [
            Problem(
                path("osSku"),
                f"'{sku}' on {size.name}: its {size.gpu.name} GPUs are not run on Azure Linux "
                "(AKS MIG pools need Ubuntu; the same holds for these sizes without MIG); "
                "allowed: Ubuntu, Ubuntu2204",
            )
        ]
    return []


def _capacity_problems(pool: GpuPoolConfig, path: Path) -> list[Problem]:
    problems = []
    group = pool.capacity_reservation_group_id
    if group is not None and not AZURE_CAPACITY_RESERVATION_GROUP_ID.fullmatch(group):
        problems.append(
            Problem(
                path("capacityReservationGroupId"),
                f"'{group[:80]}' is not a capacity reservation group id; allowed: "
                "/subscriptions/<guid>/"
                "resourceGroups/<group>/providers/Microsoft.Compute/capacityReservationGroups/<name>",
            )
        )
    spot_only = {"evictionPolicy": pool.eviction_policy, "spotMaxPrice": pool.spot_max_price}
    problems += [
        Problem(path(key), "applies to Spot pools only; set priority: Spot or remove it")
        for key in spot_only_keys(pool.priority, spot_only)
    ]
    price = spot_max_price_problem(pool.spot_max_price)
    problems += [Problem(path("spotMaxPrice"), price)] if price else []
    spot_group = spot_reservation_problem(pool.priority, group is not None)
    problems += [Problem(path("capacityReservationGroupId"), spot_group)] if spot_group else []
    return problems


def spot_reservation_problem(priority: str | None, group_given: bool) -> str | None:
    """Spot VMs cannot draw from a capacity reservation group (the config and ``AksGpuPoolArgsModel``)."""
    if priority == "Spot" and group_given:
        return (
            "a Spot pool cannot use a capacity reservation group (reservations hold regular, pay-as-you-go "
            "capacity); remove one of the Spot priority and the capacity reservation group"
        )
    return None


def spot_max_price_problem(price: object) -> str | None:
    """AKS: "the value must be -1 or a positive value with up to five decimal places"; inf and nan are neither."""
    if price is None or isinstance(price, bool) or not isinstance(price, (int, float)):
        return None
    if price == -1 or (math.isfinite(price) and price > 0 and round(price, 5) == price):
        return None
    return (
        f"{price} is not a Spot max price; allowed: -1 (up to the on-demand price) or a positive price in US "
        "dollars with at most five decimals"
    )


def spot_only_keys(priority: str | None, settings: dict[str, object]) -> list[str]:
    """The Spot-only settings (eviction policy, max price) given on a pool that is not Spot: AKS refuses them."""
    return [key for key, value in settings.items() if value is not None and priority != "Spot"]


def stack_problems(config: StackConfig, pools: dict[int, GpuPoolConfig]) -> list[Problem]:
    """Every node fits the overlay pod CIDR; with the GPU Operator, one OS SKU on every node of the cluster."""
    return pod_cidr_problems(config, pools) + _one_os_problems(config, pools)


def stack_findings(config: StackConfig, pools: dict[int, GpuPoolConfig]) -> Findings:
    """The rules across an AKS stack's pools: problems, and the reservation identity's warnings."""
    return Findings(stack_problems(config, pools), reservation_identity_warnings(config, pools))


def reservation_identity_warnings(config: StackConfig, pools: dict[int, GpuPoolConfig]) -> list[str]:
    """Pools on capacity reservation groups need the cluster's identity to be user-assigned, with Contributor on
    the resource group holding each group: gpupools makes it for clusters it creates, and says so for an existing
    one."""
    named = [
        f"{pool.name} ({_group_name(pool.capacity_reservation_group_id)})"
        for pool in pools.values()
        if pool.capacity_reservation_group_id
    ]
    if not named:
        return []
    if not config.cluster.create:
        return [
            f"pools {', '.join(named)} draw from capacity reservation groups: the existing cluster "
            f"{config.cluster.name} must use a user-assigned managed identity with the Contributor role on the "
            "resource group holding each group (\"System-assigned managed identities don't work for this "
            'feature"); gpupools does not change '
            "an existing cluster's identity: az aks update --enable-managed-identity --assign-identity <id>, "
            "and allow up to 60 minutes for the role assignment to propagate"
        ]
    return [
        f"pools {', '.join(named)} draw from capacity reservation groups, so the cluster {config.cluster.name} "
        "gets a user-assigned identity with the Contributor role on the resource group holding each group "
        "(system-assigned identities do "
        "not work with them); on a cluster gpupools created before with a system-assigned identity, AKS switches "
        'it in place ("doesn\'t cause downtime"; the control plane may use the old identity for several hours), '
        "and a role assignment can take up to 60 minutes to propagate: if a pool is created without its "
        "reservation, run pulumi up again later"
    ]


def _group_name(group_id: str) -> str:
    return group_id.rstrip("/").rsplit("/", 1)[-1]


def max_cluster_nodes(config: StackConfig, pools: dict[int, GpuPoolConfig]) -> int:
    """The most nodes the cluster can hold at once: each pool at its largest (``maxCount``, else ``count``), a
    surge pool twice (both generations exist meanwhile), the system pool, and one upgrade node (``n + 1``)."""
    system = config.cluster.system_pool.count if config.cluster.system_pool else 0
    gpu = sum(
        (pool.autoscaling.max_count if pool.autoscaling else pool.count)
        * (2 if pool.resolved_rotation == "surge" else 1)
        for pool in pools.values()
    )
    return system + gpu + 1


def pod_cidr_problems(config: StackConfig, pools: dict[int, GpuPoolConfig]) -> list[Problem]:
    """A created cluster's overlay pod CIDR gives each node a /24: refuse more nodes than it has blocks."""
    if not config.cluster.create:
        return []
    blocks = 2 ** (AKS_OVERLAY_NODE_PREFIX - int(AKS_OVERLAY_POD_CIDR.split("/")[1]))
    nodes = max_cluster_nodes(config, pools)
    if nodes <= blocks:
        return []
    return [
        Problem(
            field_path("gpuPools"),
            f"up to {nodes} nodes at once (each pool at maxCount or count, surge pools twice, the system "
            f"pool and one upgrade node), but the overlay pod CIDR {AKS_OVERLAY_POD_CIDR} gives each node a "
            f"/{AKS_OVERLAY_NODE_PREFIX}: at most {blocks} nodes; allowed: lower counts, or rotation: "
            "recreate on the largest pools",
        )
    ]


def _one_os_problems(config: StackConfig, pools: dict[int, GpuPoolConfig]) -> list[Problem]:
    if not config.gpu_software.chosen_installer.needs_one_os_per_cluster:
        return []
    skus = {index: os_sku(pool) for index, pool in pools.items()}
    if config.cluster.create:
        expected, why = SYSTEM_POOL_OS_SKU, f"the system pool runs {SYSTEM_POOL_OS_SKU}"
    elif len(set(skus.values())) > 1:
        expected = skus[min(skus)]
        why = f"gpuPools[{min(skus)}] runs {expected}"
    else:
        return []
    return [
        Problem(
            field_path("gpuPools", index, "osSku"),
            f"'{sku}' differs from the cluster's other nodes ({why}); the NVIDIA GPU Operator is not compatible "
            f"with several OS versions in one AKS cluster; allowed: {expected}",
        )
        for index, sku in skus.items()
        if sku != expected
    ]


def autoscaling_findings(config: StackConfig, pool: ResolvedPool, path: Path) -> Findings:
    """An autoscaled AKS pool: minCount 0 only where AKS's autoscaler can build the node (whole nvidia.com/gpu); the
    template tags' limits are checked in rules."""
    bounds = pool.config.autoscaling
    if bounds is None:
        return Findings()
    found = Findings(warnings=[w for w in [_unready_warning(pool)] if w])
    if bounds.min_count > 0:
        return found
    why = aks_zero_problem(pool)
    if why is not None:
        return Findings(
            [Problem(path("autoscaling", "minCount"), f"0 is refused: {why}; allowed: 1..{bounds.max_count}")],
            found.warnings,
        )
    return Findings(
        warnings=found.warnings
        + [
            f"pool {pool.name}: minCount 0 on AKS: the autoscaler's template takes "
            f"{pool.gpus_per_node}x "
            "nvidia.com/gpu per node from the VM size, not the pool's sharing or MIG count, and AKS does "
            "not document reading the node-template tags gpupools sets; test a scale-up from zero"
        ]
    )


def _unready_warning(pool: ResolvedPool) -> str | None:
    """An autoscaled AKS pool whose nodes advertise no ``nvidia.com/gpu`` (MIG mixed, ``.shared``): the autoscaler
    takes every node labelled ``kubernetes.azure.com/accelerator`` without it for an unready one."""
    resources = advertised_resources(pool)
    if resources.get(GPU_RESOURCE):
        return None
    return (
        f"pool {pool.name}: its nodes advertise {', '.join(sorted(resources))} and no nvidia.com/gpu; AKS labels "
        "every GPU node kubernetes.azure.com/accelerator, and the cluster autoscaler counts such a node without "
        "nvidia.com/gpu as unready (gpu_processor.go), so it is never judged for scale-down and, past "
        'ok-total-unready-count (default 3) or 45% unready nodes, "CA stops all operations" in the whole '
        "cluster (cluster-autoscaler FAQ); keep this pool's maxCount small or use whole GPUs / migStrategy "
        "single without renameByDefault"
    )


AZURE_RULES = CloudRules(
    cluster_problems=cluster_problems,
    pool_name_problem=pool_name_problem,
    pool_problems=pool_problems,
    autoscaling_findings=autoscaling_findings,
    template_tag_problems=azure_template_tag_problems,
    stack_findings=stack_findings,
)
cloud_named("azure").attach(AZURE_RULES)
