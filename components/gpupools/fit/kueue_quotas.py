"""``gpupools fit --kueue``: the Kueue objects for the fit's pools and the demand's teams (``gpupools.kueue``).

Each pool of the answer is a flavor offering what its nodes advertise: ``nvidia.com/mig-<profile>`` under the
mixed strategy, ``nvidia.com/gpu`` for whole GPUs and for a one-profile pool under the single strategy. Its node
labels are the ones gpupools puts on the pool's nodes (the pool label, and the MIG state where the operator cuts the
GPUs, as ``domain.workloads.pool_node_selector``; a test compares them with the resolved stack's). Each team's
nominal quota is its workloads' replicas; workloads without a team are team ``default``'s. The demand's ``teams``
set each team's ``borrowingLimit`` and ``lendingLimit``.

Under the mixed strategy the MIG slices are charged as GPU memory: Kueue's ``resources.transformations`` (its
Configuration) replaces each ``nvidia.com/mig-<profile>`` a pod requests by the profile's GB of
``gpupools.io/mig-memory-gb``, so one quota per pool covers every slice size, and the quotas are written in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog.labels import GPU_RESOURCE, MIG_CONFIG_STATE_LABEL, MIG_CONFIG_STATE_READY, POOL_LABEL, mig_resource_name
from ..config.demand import DEFAULT_TEAM, Demand
from ..kueue import PoolFlavor, TeamDemand, kueue_objects
from .requests import uses_operator
from .size_fit import SizeFit

MIG_MEMORY = "gpupools.io/mig-memory-gb"  # what a MIG slice is charged as: its profile's GB
CONFIG_API_VERSION = "config.kueue.x-k8s.io/v1beta1"


@dataclass(frozen=True)
class FitKueue:
    """The objects ``kubectl apply`` takes, and the Configuration stanza to merge into Kueue's own (None: none)."""

    objects: list[dict[str, Any]]
    configuration: dict[str, Any] | None


def fit_kueue(demand: Demand, fit: SizeFit) -> FitKueue:
    software = fit.stack["gpuSoftware"]
    single = software["migStrategy"] == "single"
    operator = uses_operator(demand)  # the MIG manager cuts the GPUs: pods wait for its success label
    memory = {p.name: p.memory_gb for p in fit.request.size.gpu.profiles}
    charged: dict[str, int] = {}  # MIG resource -> GB it is charged as

    def resource(profile: str | None) -> tuple[str, int]:
        """The resource one replica uses, and how much of it: a MIG slice under the mixed strategy is its GB."""
        if profile is None or single:
            return GPU_RESOURCE, 1
        charged[mig_resource_name(profile)] = memory[profile]
        return MIG_MEMORY, memory[profile]

    flavors = []
    for pool in fit.pools:
        labels = {POOL_LABEL: pool.name}
        if any(config is not None for config, _ in pool.groups) and operator:
            labels[MIG_CONFIG_STATE_LABEL] = MIG_CONFIG_STATE_READY
        capacity: dict[str, int] = {}
        for profile, count in pool.per_node.items():
            name, each = resource(profile)
            capacity[name] = capacity.get(name, 0) + each * count * pool.nodes
        flavors.append(PoolFlavor(pool.name, capacity, labels))
    teams: dict[str, dict[str, int]] = {}
    for workload in demand.workloads:
        name, each = resource(fit.request.profile_of.get(workload.name))
        wanted = teams.setdefault(workload.team or DEFAULT_TEAM, {})
        wanted[name] = wanted.get(name, 0) + each * workload.count
    limits = demand.teams
    objects = kueue_objects(
        flavors,
        [
            TeamDemand(
                team,
                wanted,
                limits[team].borrowing_limit if team in limits else None,
                limits[team].lending_limit if team in limits else None,
            )
            for team, wanted in teams.items()
        ],
    )
    return FitKueue(objects, _configuration(charged) if charged else None)


def _configuration(charged: dict[str, int]) -> dict[str, Any]:
    """Kueue's Configuration, only its ``resources.transformations``: each slice replaced by its GB."""
    transformations = [
        {"input": name, "strategy": "Replace", "outputs": {MIG_MEMORY: str(gb)}} for name, gb in sorted(charged.items())
    ]
    return {
        "apiVersion": CONFIG_API_VERSION,
        "kind": "Configuration",
        "resources": {"transformations": transformations},
    }
