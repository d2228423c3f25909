"""What a Karpenter pool needs of its cluster and its capacity: Karpenter installed here or said to be there, a
node role on an existing cluster, and reservations Karpenter can select.

Read from the Karpenter v1.14 docs (``concepts/nodeclasses.md``: ``capacityReservationSelectorTerms`` take an id
or tags; ``getting-started``: the node role needs an access entry). Attached to the Karpenter provisioner.
"""

from __future__ import annotations

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.cloud_registry import clouds
from ..catalog.names import AWS_ZONE, CAPACITY_RESERVATION_GROUP_ARN
from ..catalog.provisioners import KARPENTER
from ..config.errors import Problem, field_path
from ..config.models import GpuPoolConfig, StackConfig
from ..domain.karpenter_objects import overlay_capacity
from ..domain.pools import ResolvedPool
from .provisioner_rules import CLUSTER_RULES, POOL_RULES, POOL_WARNINGS, Path

# kubernetes-sigs/karpenter#2533, open when read (2026-11-28): NodeClaims of NodePools a NodeOverlay adds extended
# resources to can stay not Ready.
OVERLAY_ISSUE = "kubernetes-sigs/karpenter#2533"


def karpenter_pool_problems(config: StackConfig, pool: GpuPoolConfig, path: Path) -> list[Problem]:
    cluster, problems = config.cluster, []
    if cluster is not None and cluster.create and not cluster.karpenter.install:
        problems.append(
            Problem(
                path("provisioner"),
                "karpenter needs Karpenter in the cluster: set gpupools:cluster.karpenter.install: true",
            )
        )
    if cluster is not None and not cluster.create:
        if not cluster.karpenter.present:
            problems.append(
                Problem(
                    path("provisioner"),
                    "karpenter on an existing cluster needs its platform stack to run Karpenter: set "
                    "gpupools:cluster.karpenter.present: true only where that stack's karpenter output is true",
                )
            )
        if cluster.node_role_arn is None:
            problems.append(
                Problem(
                    path("provisioner"),
                    "karpenter on an existing cluster needs gpupools:cluster.nodeRoleArn, the node role the "
                    "cluster admits (an EC2_LINUX access entry): each EC2NodeClass names it",
                )
            )
    problems += _zone_problems(config, pool, path)
    reservation = pool.capacity_reservation
    if reservation is not None and CAPACITY_RESERVATION_GROUP_ARN.fullmatch(reservation):
        problems.append(
            Problem(
                path("capacityReservation"),
                "a reservation group is refused with provisioner karpenter: its EC2NodeClass selects "
                "reservations by id (cr-...) or tags only (capacityReservationSelectorTerms)",
            )
        )
    return problems


def _zone_problems(config: StackConfig, pool: GpuPoolConfig, path: Path) -> list[Problem]:
    """Zones by name, each once, in the cluster's region (a NodePool never launches in another region)."""
    zones = pool.karpenter.zones if pool.karpenter is not None else []
    region = config.cluster.region if config.cluster is not None else None
    problems = []
    for index, zone in enumerate(zones):
        found = AWS_ZONE.fullmatch(zone)
        if found is None:
            why = f"'{zone[:40]}' is not an availability zone name; allowed: the region and a letter, e.g. us-east-1a"
        elif region and found.group("region") != region:
            why = f"'{zone}' is not in the cluster's region {region}; allowed: {region}a, {region}b, ..."
        elif zone in zones[:index]:
            why = f"'{zone}' is listed more than once; each zone at most once"
        else:
            continue
        problems.append(Problem(path("karpenter", "zones", index), why))
    return problems


def karpenter_cluster_problems(config: StackConfig) -> list[Problem]:
    cluster = config.cluster
    if cluster is None or "karpenter" not in cluster.model_fields_set:
        return []
    settings, path = cluster.karpenter, lambda key: field_path("cluster", "karpenter", key)
    if KARPENTER.name not in cloud_named(config.cloud).node_provisioners:
        offering = ", ".join(c.name for c in clouds() if KARPENTER.name in c.node_provisioners)
        return [
            Problem(
                field_path("cluster", "karpenter"),
                f"is refused on {config.cloud}: Karpenter is not offered there; allowed on {offering}",
            )
        ]
    problems = []
    if settings.install and not cluster.create:
        problems.append(
            Problem(
                path("install"),
                "is for a cluster gpupools creates: one Karpenter serves a whole cluster, so the stack that owns "
                "the existing cluster installs it; say it is there with present: true",
            )
        )
    if settings.present and cluster.create:
        problems.append(Problem(path("present"), "is for an existing cluster (create: false); here set install: true"))
    if "version" in settings.model_fields_set and not settings.install:
        problems.append(Problem(path("version"), "applies to the Karpenter gpupools installs; set install: true"))
    return problems


def karpenter_pool_warnings(config: StackConfig, pool: ResolvedPool) -> list[str]:
    warnings = []
    capacity = overlay_capacity(pool)
    if capacity is not None:
        shown = ", ".join(f"{count}x {name}" for name, count in capacity.items())
        owner = (
            "gpupools turns it on in the chart it installs"
            if config.cluster is not None and config.cluster.create
            else "the cluster owner's Karpenter must run with it on"
        )
        warnings.append(
            f"pool {pool.name}: its NodeOverlay ({shown} per node, so Karpenter can launch nodes for them from zero) "
            f"is alpha (karpenter.sh/v1alpha1) and needs the NodeOverlay feature gate, off by default (Karpenter "
            f"v1.14 settings): {owner}; {OVERLAY_ISSUE} (NodeClaims can stay not Ready with an overlay's extended "
            "resources) is open, so watch the pool's first nodes (gpupools verify)"
        )
    if pool.dra:
        warnings.append(
            f"pool {pool.name}: DRA in Karpenter is alpha: its scheduling simulation may not count ResourceClaims, "
            "so pods claiming GPUs through DRA may not make it launch nodes; gpupools has not checked this offline"
        )
    return warnings


KARPENTER.attach(POOL_RULES, karpenter_pool_problems)
KARPENTER.attach(POOL_WARNINGS, karpenter_pool_warnings)
KARPENTER.attach(CLUSTER_RULES, karpenter_cluster_problems)
