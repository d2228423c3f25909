"""The Kueue objects for pools and teams: a ResourceFlavor per pool, a ClusterQueue and LocalQueue per team.

Each team's ClusterQueue has a nominal quota of each slice resource equal to its demand, spread over the flavors
(pools) that offer it. Kueue gives a pod set one flavor per resource (docs, "Flavors and borrowing semantics"), so
a team's demand goes whole to one pool where one has room (largest demands first), and is split only when none
has. Resources that share a pool share a resource group (Kueue: a flavor belongs to at most one group, and every
flavor of a group lists every covered resource, with 0 where its pool has none).

The ClusterQueues share a cohort so one team can borrow what another leaves idle, and reclaim its own quota by
preemption (``reclaimWithinCohort: Any``) when it needs it back. Kueue lends only for the (flavor, resource) pairs
a ClusterQueue lists itself ("A ClusterQueue can only borrow quota for flavors that the ClusterQueue defines",
cluster_queue.md; "it must define nominal quota ... even if this value is 0", cohort.md, Kueue v0.19.2), so every
queue lists every flavor and resource of the cohort, with 0 where its team has no demand, and its own flavors
first: Kueue takes the first flavor that fits, and a team should use its own quota before it borrows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..untrusted.text import shown
from .errors import KueueError
from .inputs import PoolFlavor, TeamDemand
from .limits import MAX_FLAVORS_PER_GROUP, MAX_RESOURCE_GROUPS, MAX_RESOURCES_PER_GROUP
from .names import dns_label

KUEUE_API_VERSION = "kueue.x-k8s.io/v1beta1"  # served from v0.9 to v0.19 (deprecated from v0.15)
KUEUE_API_VERSIONS = {KUEUE_API_VERSION: "cohort", "kueue.x-k8s.io/v1beta2": "cohortName"}  # -> the cohort field
DEFAULT_COHORT = "gpupools"
# Quota (flavor, resource) -> team -> amount.
Quotas = dict[tuple[str, str], dict[str, int]]


def kueue_objects(
    pools: Sequence[PoolFlavor],
    teams: Sequence[TeamDemand],
    *,
    cohort: str | None = DEFAULT_COHORT,
    local_queues: bool = True,
    api_version: str = KUEUE_API_VERSION,
) -> list[dict[str, Any]]:
    """ResourceFlavors (in ``pools``' order: the order Kueue tries them in), then ClusterQueues, then LocalQueues
    (namespace and name: the team's), teams sorted by name. ``cohort=None``: no borrowing between teams.
    ``api_version``: ``kueue.x-k8s.io/v1beta1`` (Kueue v0.9 on) or ``v1beta2`` (v0.15 on; the cohort is
    ``cohortName``)."""
    if api_version not in KUEUE_API_VERSIONS:
        raise KueueError(f"api_version {api_version!r}: allowed {', '.join(KUEUE_API_VERSIONS)}")
    _unique([p.name for p in pools], [p.pool for p in pools], "pool")
    _unique([t.name for t in teams], [t.team for t in teams], "team")
    cohort_name = None if cohort is None else dns_label(cohort, "cohort")
    quotas = _assign(pools, teams)
    groups = _groups(teams, pools)
    ordered = sorted(teams, key=lambda t: t.name)
    objects = [_resource_flavor(pool, api_version) for pool in pools]
    objects += [_cluster_queue(team, groups, quotas, cohort_name, api_version) for team in ordered]
    if local_queues:
        objects += [_local_queue(team, api_version) for team in ordered]
    return objects


def _unique(names: list[str], given: list[str], what: str) -> None:
    seen: dict[str, str] = {}
    for name, original in zip(names, given, strict=True):
        if name in seen:
            raise KueueError(shown(f"{what}s {seen[name]!r} and {original!r} both make the Kubernetes name {name}"))
        seen[name] = original


def _assign(pools: Sequence[PoolFlavor], teams: Sequence[TeamDemand]) -> Quotas:
    """Each team's demand per resource on the pools that offer it: whole on the first pool with room, largest
    demands first; split over pools in order only when no single pool has room. Refuses what the pools lack."""
    quotas: Quotas = {}
    for resource in sorted({r for team in teams for r in team.demand}):
        offering = [pool for pool in pools if pool.offers(resource)]
        wanting = sorted((t for t in teams if resource in t.demand), key=lambda t: (-t.demand[resource], t.name))
        if not offering:
            names = ", ".join(t.team for t in sorted(wanting, key=lambda t: t.name))
            who = f"teams {names} demand" if len(wanting) > 1 else f"team {names} demands"
            raise KueueError(shown(f"{who} {resource}, which no pool offers"))
        room = {pool.name: pool.offers(resource) for pool in offering}
        asked, held = sum(t.demand[resource] for t in wanting), sum(room.values())
        if asked > held:
            raise KueueError(f"teams demand {asked}x {resource} in all; the pools offer {held}")
        for team in wanting:
            _place(team.name, team.demand[resource], resource, offering, room, quotas)
    return quotas


def _place(team: str, need: int, resource: str, offering: list[PoolFlavor], room: dict[str, int], quotas: Quotas):
    whole = next((pool for pool in offering if room[pool.name] >= need), None)
    for pool in [whole] if whole is not None else offering:
        take = min(need, room[pool.name])
        if take:
            quotas.setdefault((pool.name, resource), {})[team] = take
            room[pool.name] -= take
            need -= take


def _groups(teams: Sequence[TeamDemand], pools: Sequence[PoolFlavor]) -> list[tuple[list[str], list[PoolFlavor]]]:
    """The cohort's resource groups, the same in every queue: every resource some team demands, joined when a pool
    offers both (each group: its resources, the pools offering any, in ``pools``' order)."""
    groups: list[tuple[set[str], set[str]]] = []  # (resources, pool names)
    for resource in sorted({r for team in teams for r in team.demand}):
        names = {pool.name for pool in pools if pool.offers(resource)}
        joined = [g for g in groups if g[1] & names]
        groups = [g for g in groups if not g[1] & names]
        groups.append(({resource}.union(*(g[0] for g in joined)), names.union(*(g[1] for g in joined))))
    found = sorted((sorted(r), [pool for pool in pools if pool.name in n]) for r, n in groups)
    if len(found) > MAX_RESOURCE_GROUPS:
        raise KueueError(f"the teams need {len(found)} resource groups; a ClusterQueue holds {MAX_RESOURCE_GROUPS}")
    for resources, members in found:
        if len(resources) > MAX_RESOURCES_PER_GROUP or len(members) > MAX_FLAVORS_PER_GROUP:
            raise KueueError(
                f"{len(resources)} resources over {len(members)} pools in one resource group; Kueue "
                f"holds {MAX_RESOURCES_PER_GROUP} resources and {MAX_FLAVORS_PER_GROUP} flavors a group"
            )
    return found


def _resource_flavor(pool: PoolFlavor, api_version: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeLabels": dict(pool.node_labels or {})}
    if pool.taints:
        spec["tolerations"] = [taint.kubernetes_toleration() for taint in pool.taints]
    return {"apiVersion": api_version, "kind": "ResourceFlavor", "metadata": {"name": pool.name}, "spec": spec}


def _cluster_queue(
    team: TeamDemand,
    groups: list[tuple[list[str], list[PoolFlavor]]],
    quotas: Quotas,
    cohort: str | None,
    api_version: str,
) -> dict[str, Any]:
    def nominal(pool: PoolFlavor, resource: str) -> int:
        return quotas.get((pool.name, resource), {}).get(team.name, 0)

    def quota(pool: PoolFlavor, resource: str) -> dict[str, Any]:
        found: dict[str, Any] = {"name": resource, "nominalQuota": nominal(pool, resource)}
        if cohort is not None and team.borrowing_limit is not None:
            found["borrowingLimit"] = team.borrowing_limit
        if cohort is not None and team.lending_limit is not None:  # Kueue: at most the nominal quota
            found["lendingLimit"] = min(team.lending_limit, found["nominalQuota"])
        return found

    resource_groups = []
    for resources, members in groups:
        own = [pool for pool in members if any(nominal(pool, r) for r in resources)]
        flavors = own + [pool for pool in members if pool not in own]
        resource_groups.append(
            {
                "coveredResources": resources,
                "flavors": [{"name": p.name, "resources": [quota(p, r) for r in resources]} for p in flavors],
            }
        )
    spec: dict[str, Any] = {"namespaceSelector": {}}
    if cohort is not None:
        spec[KUEUE_API_VERSIONS[api_version]] = cohort
        spec["preemption"] = {"reclaimWithinCohort": "Any"}
    spec["resourceGroups"] = resource_groups
    return {"apiVersion": api_version, "kind": "ClusterQueue", "metadata": {"name": team.name}, "spec": spec}


def _local_queue(team: TeamDemand, api_version: str) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": "LocalQueue",
        "metadata": {"name": team.name, "namespace": team.name},
        "spec": {"clusterQueue": team.name},
    }
