"""``gpupools fit --kueue``: the Kueue objects for the fit's pools and the demand's teams (``gpupools.kueue``).

Each pool of the answer is a flavor offering what its nodes advertise: ``nvidia.com/mig-<profile>`` under the
mixed strategy, ``nvidia.com/gpu`` for whole GPUs and for a one-profile pool under the single strategy. Its node
labels are the ones gpupools puts on the pool's nodes (the pool label, and the MIG state where the operator cuts the
GPUs, as ``domain.workloads.pool_node_selector``; a test compares them with the resolved stack's). Each team's
nominal quota is its workloads' replicas; workloads without a team get no ClusterQueue.
"""

from __future__ import annotations

from typing import Any

from ..catalog.labels import GPU_RESOURCE, MIG_CONFIG_STATE_LABEL, MIG_CONFIG_STATE_READY, POOL_LABEL, mig_resource_name
from ..config.demand import Demand
from ..kueue import PoolFlavor, TeamDemand, kueue_objects
from .requests import uses_operator
from .size_fit import SizeFit


def fit_kueue_objects(demand: Demand, fit: SizeFit) -> list[dict[str, Any]]:
    software = fit.stack["gpuSoftware"]
    single = software["migStrategy"] == "single"
    operator = uses_operator(demand)  # the MIG manager cuts the GPUs: pods wait for its success label

    def resource(profile: str | None) -> str:
        return GPU_RESOURCE if profile is None or single else mig_resource_name(profile)

    flavors = []
    for pool in fit.pools:
        labels = {POOL_LABEL: pool.name}
        if any(config is not None for config, _ in pool.groups) and operator:
            labels[MIG_CONFIG_STATE_LABEL] = MIG_CONFIG_STATE_READY
        offered: dict[str, int] = {}
        for profile, count in pool.per_node.items():
            offered[resource(profile)] = offered.get(resource(profile), 0) + count * pool.nodes
        flavors.append(PoolFlavor(pool.name, offered, labels))
    teams: dict[str, dict[str, int]] = {}
    for workload in demand.workloads:
        if workload.team is None:
            continue
        name = resource(fit.request.profile_of.get(workload.name))
        wanted = teams.setdefault(workload.team, {})
        wanted[name] = wanted.get(name, 0) + workload.count
    return kueue_objects(flavors, [TeamDemand(team, wanted) for team, wanted in teams.items()])
