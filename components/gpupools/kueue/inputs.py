"""What the quotas are made of: the pools (one flavor each, with what they offer) and each team's demand.

Both are plain frozen values, so a caller builds them from anything: ``fit``'s answer, a stack (``pool_flavor``),
or a hand-written table. They check their own fields, so every later step can trust them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..catalog.labels import GPU_TAINT, POOL_LABEL, Taint
from ..domain.capacity import pool_capacity
from ..domain.pools import ResolvedPool
from ..domain.workloads import pool_node_selector
from ..untrusted.text import shown
from .errors import KueueError
from .limits import MAX_NODE_LABELS, MAX_TOLERATIONS
from .names import dns_label

# A Kubernetes resource name: a qualified name (an optional DNS-subdomain prefix and ``/``, then at most 63
# characters), as apimachinery's IsQualifiedName, which Kueue's webhook applies to coveredResources.
_NAME_PART = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_PREFIX = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
RESOURCE_NAME = re.compile(rf"({_PREFIX}/)?{_NAME_PART}")
MAX_PREFIX = 253


def _counts(owner: str, counts: Mapping[str, int], what: str) -> dict[str, int]:
    """``counts`` checked: resource names Kubernetes accepts, whole non-negative numbers; sorted by name."""
    if not isinstance(counts, Mapping):
        raise KueueError(shown(f"{owner}: {what} must map resource names to counts, got {type(counts).__name__}"))
    checked = {}
    for name, count in counts.items():
        if not isinstance(name, str) or not RESOURCE_NAME.fullmatch(name) or len(name.partition("/")[0]) > MAX_PREFIX:
            raise KueueError(shown(f"{owner}: {name!r} is not a Kubernetes resource name (such as nvidia.com/gpu)"))
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise KueueError(shown(f"{owner}: {what} of {name} must be a whole number of at least 0, got {count!r}"))
        checked[name] = count
    return dict(sorted(checked.items()))


@dataclass(frozen=True)
class PoolFlavor:
    """One pool as a Kueue ResourceFlavor: its nodes' labels and taints, and the slices it holds in all.

    ``capacity`` is the pool's whole offer per resource (``nvidia.com/mig-1g.5gb: 14``), as the device plugin
    names it; teams' quotas on the flavor never add up to more. ``node_labels`` select the pool's nodes (by
    default ``gpupools.io/pool=<pool>``, the label gpupools puts on them) and Kueue adds them to the nodeSelector
    of what it admits; ``taints`` are what those nodes carry, which Kueue adds as tolerations.
    """

    pool: str
    capacity: Mapping[str, int]
    node_labels: Mapping[str, str] | None = None
    taints: tuple[Taint, ...] = (GPU_TAINT,)
    name: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", dns_label(self.pool, "pool"))
        object.__setattr__(self, "capacity", _counts(f"pool {self.pool}", self.capacity, "capacity"))
        labels = {POOL_LABEL: self.pool} if self.node_labels is None else dict(self.node_labels)
        if len(labels) > MAX_NODE_LABELS:
            raise KueueError(f"pool {self.pool}: {len(labels)} node labels; a ResourceFlavor holds {MAX_NODE_LABELS}")
        object.__setattr__(self, "node_labels", dict(sorted(labels.items())))
        if len(self.taints) > MAX_TOLERATIONS:
            raise KueueError(f"pool {self.pool}: {len(self.taints)} taints; a ResourceFlavor holds {MAX_TOLERATIONS}")

    def offers(self, resource: str) -> int:
        return self.capacity.get(resource, 0)


@dataclass(frozen=True)
class TeamDemand:
    """What one team asks for at once, per resource (``nvidia.com/mig-1g.5gb: 20``): its nominal quota.

    ``borrowing_limit`` caps what the team may borrow from the cohort, ``lending_limit`` what it lends of its
    idle quota, both per flavor and resource (Kueue's ``borrowingLimit`` and ``lendingLimit``); None: no cap.
    """

    team: str
    demand: Mapping[str, int]
    borrowing_limit: int | None = None
    lending_limit: int | None = None
    name: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", dns_label(self.team, "team"))
        for what, limit in (("borrowingLimit", self.borrowing_limit), ("lendingLimit", self.lending_limit)):
            if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
                raise KueueError(shown(f"team {self.team}: {what} must be a whole number of at least 0, got {limit!r}"))
        wanted = {k: v for k, v in _counts(f"team {self.team}", self.demand, "demand").items() if v}
        if not wanted:
            raise KueueError(shown(f"team {self.team!r} demands nothing; give it at least one slice or leave it out"))
        object.__setattr__(self, "demand", wanted)


def pool_flavor(pool: ResolvedPool) -> PoolFlavor:
    """A validated pool as a flavor: its node selector (the pool label, and the MIG state where the operator cuts
    the GPUs), every taint its nodes carry, and the slices its nodes hold at once (``pool_capacity``)."""
    if pool.dra:
        raise KueueError(
            f"pool {pool.name} is served by the DRA driver: its GPUs are claimed devices, not extended resources a "
            "ClusterQueue can count; Kueue quotas are written for device-plugin pools only"
        )
    return PoolFlavor(pool.name, pool_capacity(pool).total, pool_node_selector(pool), tuple(pool.node_taints))
