"""The rules of node provisioners: which ones a cloud offers, what a pool of each takes, and what its cluster runs.

What a provisioner allows follows from its facts (``catalog/provisioners.py``); what only one provisioner checks is
a facet it carries (``POOL_RULES``, ``CLUSTER_RULES``, attached by its own module, e.g. ``karpenter_rules``), so no
rule compares a provisioner's name.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic.alias_generators import to_camel

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.installers import Capability
from ..catalog.provisioners import PROVISIONERS, provisioner_named
from ..config.errors import Problem
from ..config.models import GpuPoolConfig, StackConfig
from ..domain.pools import ResolvedPool

Path = Callable[..., str]
PoolRule = Callable[[StackConfig, GpuPoolConfig, Path], list[Problem]]
ClusterRule = Callable[[StackConfig], list[Problem]]
PoolWarnings = Callable[[StackConfig, ResolvedPool], list[str]]
POOL_RULES: Capability[PoolRule] = Capability("pool rules")
CLUSTER_RULES: Capability[ClusterRule] = Capability("cluster rules")
POOL_WARNINGS: Capability[PoolWarnings] = Capability("pool warnings")

# The pool fields that belong to a fixed node count, and those that belong to a provisioner launching on demand.
_COUNT_FIELDS = ("count", "autoscaling", "rotation")
_ON_DEMAND_FIELDS = ("max_count", "karpenter")


def _key(field: str) -> str:
    """A pool field as the stack file spells it."""
    return GpuPoolConfig.model_fields[field].alias or to_camel(field)


def pool_problems(config: StackConfig, pool: GpuPoolConfig, path: Path) -> list[Problem]:
    """The pool's provisioner is one its cloud offers, and the pool gives only the keys that provisioner reads."""
    provisioner = provisioner_named(pool.provisioner)
    offered = cloud_named(config.cloud).node_provisioners
    if provisioner.name not in offered:
        return [
            Problem(
                path("provisioner"),
                f"'{provisioner.name}' is not offered on {config.cloud}; allowed: {', '.join(offered)}",
            )
        ]
    given = pool.model_fields_set
    problems = []
    if provisioner.fixed_node_count:
        on_demand = ", ".join(p.name for p in PROVISIONERS.values() if not p.fixed_node_count and p.name in offered)
        for field in _ON_DEMAND_FIELDS:
            if field in given:
                hint = f"set provisioner: {on_demand}" if on_demand else f"no provisioner on {config.cloud} reads it"
                problems.append(
                    Problem(
                        path(_key(field)), f"is for a pool whose nodes come with pending pods; {hint}, or remove it"
                    )
                )
        return problems
    for field in _COUNT_FIELDS:
        if field in given:
            problems.append(
                Problem(
                    path(_key(field)),
                    f"is refused with provisioner {provisioner.name}: {provisioner.display_name} launches nodes for "
                    "pending pods from zero and replaces them itself, so the pool has no node count, no cluster "
                    "autoscaler and no rotation; its limit is maxCount",
                )
            )
    if pool.max_count is None:
        problems.append(
            Problem(path("maxCount"), f"is required with provisioner {provisioner.name}: the most nodes it launches")
        )
    if provisioner.supports(POOL_RULES):
        problems += provisioner.facet(POOL_RULES)(config, pool, path)
    return problems


def cluster_problems(config: StackConfig) -> list[Problem]:
    """Each provisioner's own cluster settings (Karpenter's install or presence)."""
    return [
        problem
        for provisioner in PROVISIONERS.values()
        if provisioner.supports(CLUSTER_RULES)
        for problem in provisioner.facet(CLUSTER_RULES)(config)
    ]


def pool_warnings(config: StackConfig, pool: ResolvedPool) -> list[str]:
    """Where the ground under a resolved pool's provisioner is moving (alpha features, open upstream issues)."""
    provisioner = pool.provisioner
    return provisioner.facet(POOL_WARNINGS)(config, pool) if provisioner.supports(POOL_WARNINGS) else []
