"""What a change does to GPU capacity: two plans (base and head) in, pools added, removed or replaced out.

Both sides are plan JSON documents (``gpupools plan --json``), so a pull request can plan its base commit and
its head commit separately and compare them without either checkout. A pool's cloud resource is found by its
``gpupools.io/pool`` label, which every generation of the pool carries. The pool is *replaced* when a field the
cloud cannot change in place differs (``immutable_fields``, the table the components give Pulumi as
``replace_on_changes``) or its cloud name does; the head's ``rotation`` says how: ``surge`` creates the new
pool before deleting the old, ``recreate`` deletes first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Iterable, Literal, Mapping, Sequence, TypeVar

from ..catalog.fixed_fields import AKS_AGENT_POOL, EKS_NODE_GROUP, FixedAtCreation
from ..catalog.labels import POOL_LABEL
from ..config.models import Rotation
from ..domain.rotation import Order, replacement_order
from .aliases import aliased_replacement, is_alias_of
from .headline import headline, layout_changes, pool_phrase, slice_change
from .in_place import NODEPOOL, InPlaceEffect, in_place_effect, joined
from .recut import pool_recut

Change = Literal["added", "removed", "replaced", "changed", "unchanged"]


N = TypeVar("N", int, float)


@dataclass(frozen=True)
class BeforeAfter(Generic[N]):
    """One figure before and after; ``None`` never appears, a missing side counts as zero."""

    before: N
    after: N

    @property
    def delta(self) -> N:
        return self.after - self.before

    def to_json(self) -> dict[str, N]:
        return {"before": self.before, "after": self.after, "delta": self.delta}

    def __str__(self) -> str:
        return f"{self.before} → {self.after}" if self.delta else str(self.after)


Count = BeforeAfter[int]  # nodes, GPUs and slices


@dataclass(frozen=True)
class PoolDiff:
    """One pool's change: how, which fields force a replacement, and its nodes, GPUs and usable slices."""

    pool: str
    change: Change
    replaced_by: tuple[str, ...]
    nodes: Count
    gpus: Count
    resources: dict[str, Count]
    replacement: Replacement | None = None
    # An in-place update that still touches the nodes (plan/in_place.py), e.g. a new capacity reservation group.
    effect: InPlaceEffect | None = None

    @property
    def outage(self) -> bool:
        """The pool's capacity goes offline for a while: a delete-first replacement, or an in-place update that
        needs its nodes gone."""
        if self.replacement is not None:
            return self.replacement.offline and self.gpus.before > 0
        return self.effect is not None and self.effect.outage

    def to_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "change": self.change,
            "replacedBy": list(self.replaced_by),
            "replacement": self.replacement.to_json(self.gpus) if self.replacement else None,
            "inPlace": self.effect.to_json() if self.effect else None,
            "nodes": self.nodes.to_json(),
            "gpus": self.gpus.to_json(),
            "resources": {name: count.to_json() for name, count in self.resources.items()},
        }


@dataclass(frozen=True)
class Replacement:
    """How a replaced pool goes: its cloud names before and after, the rotation (surge or recreate), and which comes
    first (``domain.rotation.replacement_order``: the text, Markdown, JSON and cost diff all read ``order``)."""

    rotation: Rotation
    old_name: str
    new_name: str
    order: Order = "create-first"
    # The old resource's logical name when the new generation carries an alias to it that the state still holds.
    aliased_from: str | None = None

    @property
    def offline(self) -> bool:
        """Delete-first: the old pool's capacity is gone until the new pool is up."""
        return self.order == "delete-first"

    def describe(self, gpus: Count) -> str:
        if self.rotation == "surge" and self.offline and self.aliased_from:
            return aliased_replacement(self.aliased_from, self.old_name, self.new_name, gpus.before)
        if self.rotation == "surge" and self.offline:
            return (
                f"surge, but delete-first: {self.old_name} is deleted before {self.new_name} is created (pulumi-eks "
                f"names both generations alike), so its capacity ({gpus.before} GPUs) is gone until "
                f"{self.new_name} is up"
            )
        if self.rotation == "surge":
            return (
                f"surge: new pool {self.new_name} is created before {self.old_name} is deleted "
                f"(up to {gpus.before + gpus.after} GPUs meanwhile)"
            )
        return (
            f"recreate: {self.old_name} is deleted first, its capacity ({gpus.before} GPUs) is gone until "
            f"{self.new_name} is up"
        )

    def to_json(self, gpus: Count) -> dict[str, Any]:
        return {
            "rotation": self.rotation,
            "order": self.order,
            "takesCapacityOffline": self.offline,
            "oldName": self.old_name,
            "newName": self.new_name,
            **({"aliasedFrom": self.aliased_from} if self.aliased_from else {}),
            "description": self.describe(gpus),
        }


@dataclass(frozen=True)
class CapacityDiff:
    """Every pool's change and the stack totals; ``removes_capacity`` when any resource total shrinks."""

    base_stack: str
    head_stack: str
    pools: tuple[PoolDiff, ...]
    nodes: Count
    gpus: Count
    resources: dict[str, Count]
    devices: dict[str, dict[str, Count]] = field(default_factory=dict)  # DRA stacks: ``dra_device_diff``
    # Each pool's MIG layout before and after (``plan.headline.layouts``), so the headline says how slices change.
    layouts: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)

    @property
    def removes_capacity(self) -> bool:
        lost_devices = any(count.delta < 0 for counts in self.devices.values() for count in counts.values())
        return lost_devices or any(count.delta < 0 for count in self.resources.values())

    @property
    def takes_capacity_offline(self) -> bool:
        return any(pool.outage for pool in self.pools)

    @property
    def changed(self) -> bool:
        return any(pool.change != "unchanged" for pool in self.pools)

    def headline(self) -> str:
        """The first line of a pull request comment (``plan.headline``): capacity lost, then offline, then per pool
        what goes and what arrives: ``mig1g: 56× nvidia.com/gpu → 16× nvidia.com/gpu, each slice grew from ...``."""
        moves = []
        for pool in self.pools:
            slices = slice_change(*self.layouts.get(pool.pool, (None, None)))
            if slices or any(count.delta for count in pool.resources.values()):
                before = {name: count.before for name, count in pool.resources.items()}
                after = {name: count.after for name, count in pool.resources.items()}
                moves.append(pool_phrase(pool.pool, before, after, slices))
        adds = any(count.delta > 0 for count in self.resources.values())
        replaced = [pool.pool for pool in self.pools if pool.change == "replaced"]
        return headline(self.removes_capacity, self._offline(), adds, moves, replaced)

    def _offline(self) -> str:
        """The pools whose capacity goes offline, and why: a delete-first replacement or an in-place update."""
        parts = []
        for pool in (pool for pool in self.pools if pool.outage):
            why = (
                "deleted before its replacement is up"
                if pool.replacement or not pool.effect
                else pool.effect.offline_why
            )
            parts.append(f"{pool.pool} ({pool.gpus.before} GPUs) {why}")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base_stack,
            "head": self.head_stack,
            "removesCapacity": self.removes_capacity,
            "takesCapacityOffline": self.takes_capacity_offline,
            "headline": self.headline(),
            "pools": [pool.to_json() for pool in self.pools],
            "nodes": self.nodes.to_json(),
            "gpus": self.gpus.to_json(),
            "resources": {name: count.to_json() for name, count in self.resources.items()},
            **(
                {
                    "draDevices": {
                        pool: {name: count.to_json() for name, count in counts.items()}
                        for pool, counts in self.devices.items()
                    }
                }
                if self.devices
                else {}
            ),
        }


def diff_plans(base: Mapping[str, Any], head: Mapping[str, Any]) -> CapacityDiff:
    """Compare two plan JSON documents pool by pool (pools are matched by name)."""
    base_pools, head_pools = _capacity_by_pool(base), _capacity_by_pool(head)
    names = [*base_pools, *(name for name in head_pools if name not in base_pools)]
    pools = tuple(
        _pool_diff(
            name,
            base_pools.get(name),
            head_pools.get(name),
            *_replacement(name, base, head),
            _in_place(name, base, head, base_pools.get(name)),
        )
        for name in names
    )
    return CapacityDiff(
        str(base.get("stack", "base")),
        str(head.get("stack", "head")),
        pools,
        _sum_counts(pool.nodes for pool in pools),
        _sum_counts(pool.gpus for pool in pools),
        _sum_resources(pool.resources for pool in pools),
        dra_device_diff(base, head),
        layout_changes(base, head),
    )


def dra_device_diff(base: Mapping[str, Any], head: Mapping[str, Any]) -> dict[str, dict[str, Count]]:
    """DRA stacks (plans with ``draDevices``): per pool, each kind the driver publishes, per node times nodes."""
    before, after = _dra_totals(base), _dra_totals(head)
    return {
        pool: _resource_counts(before.get(pool, {}), after.get(pool, {}))
        for pool in [*before, *(name for name in after if name not in before)]
    }


def _dra_totals(plan: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    nodes = {pool: _nodes(entry) for pool, entry in _capacity_by_pool(plan).items()}
    return {
        pool: {
            " ".join(filter(None, (d["kind"], d["profile"]))): int(d["perNode"]) * nodes.get(pool, 0) for d in devices
        }
        for pool, devices in (plan.get("draDevices") or {}).items()
    }


def usable_total(capacity: Mapping[str, Any]) -> dict[str, int]:
    """A pool's usable slices in total (the plan's ``total``: advertised slices, less any that pods cannot take)."""
    return dict(capacity.get("total") or {})


def _capacity_by_pool(plan: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {entry["pool"]: entry for entry in plan.get("capacity", [])}


def _pool_diff(
    name: str,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    replaced_by: Sequence[str],
    replacement: Replacement | None,
    effect: InPlaceEffect | None = None,
) -> PoolDiff:
    resources = _resource_counts(usable_total(before or {}), usable_total(after or {}))
    nodes = Count(_nodes(before), _nodes(after))
    gpus = Count(_nodes(before) * _gpus_per_node(before), _nodes(after) * _gpus_per_node(after))
    if before is None:
        change: Change = "added"
    elif after is None:
        change = "removed"
    elif replaced_by:
        change = "replaced"
    elif before != after or effect is not None:
        change = "changed"
    else:
        change = "unchanged"
    replaced = change == "replaced"
    return PoolDiff(
        name,
        change,
        tuple(replaced_by) if replaced else (),
        nodes,
        gpus,
        resources,
        replacement if replaced else None,
        None if replaced else effect,
    )


def _nodes(capacity: Mapping[str, Any] | None) -> int:
    return int(capacity.get("nodes", 0)) if capacity else 0


def _gpus_per_node(capacity: Mapping[str, Any] | None) -> int:
    return int(capacity.get("gpusPerNode", 0)) if capacity else 0


def _resource_counts(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, Count]:
    names = sorted({*before, *after})
    return {name: Count(int(before.get(name, 0)), int(after.get(name, 0))) for name in names}


def _sum_counts(counts: Iterable[Count]) -> Count:
    counts = list(counts)
    return Count(sum(c.before for c in counts), sum(c.after for c in counts))


def _sum_resources(per_pool: Iterable[Mapping[str, Count]]) -> dict[str, Count]:
    totals: dict[str, Count] = {}
    for resources in per_pool:
        for name, count in resources.items():
            seen = totals.get(name, Count(0, 0))
            totals[name] = Count(seen.before + count.before, seen.after + count.after)
    return dict(sorted(totals.items()))


def _replacement(pool: str, base: Mapping[str, Any], head: Mapping[str, Any]) -> tuple[list[str], Replacement | None]:
    """The inputs of the pool's cloud resource that force a replacement (fixed fields, then its name), and how."""
    before, after = _pool_resource(pool, base), _pool_resource(pool, head)
    if before is None or after is None or before["type"] != after["type"]:
        return [], None
    kind = before["type"]
    fields = sorted(_FIXED_AT_CREATION.get(kind, {}))
    changed = [field for field in fields if _get(before["inputs"], field) != _get(after["inputs"], field)]
    name_input = _POOL_NAME_INPUT[kind]
    old_name, new_name = _get(before["inputs"], name_input), _get(after["inputs"], name_input)
    if old_name != new_name:
        changed.append(name_input)
    if not changed:
        return [], None
    rotation = _rotation(pool, head, after)
    aliased = is_alias_of(after, before)  # the new generation is the old resource, replaced (plan/aliases.py)
    new_resource = before.get("name") != after.get("name") and not aliased
    order = replacement_order(rotation, new_resource, _CREATE_FIRST_OPTION_REACHES[kind])
    return changed, Replacement(rotation, str(old_name), str(new_name), order, str(before["name"]) if aliased else None)


def _in_place(
    pool: str, base: Mapping[str, Any], head: Mapping[str, Any], capacity: Mapping[str, Any] | None
) -> InPlaceEffect | None:
    """What updating the pool's cloud resource in place does to its nodes, when both plans have it."""
    before, after = _pool_resource(pool, base), _pool_resource(pool, head)
    if before is None or after is None or before["type"] != after["type"]:
        return None
    # A NodePool's layout change is drift: Karpenter replaces its nodes (in_place_effect), it re-cuts none in place.
    nodepool = before["type"] == NODEPOOL
    recut = None if nodepool else pool_recut(pool, before, after, _LABELS_INPUT[before["type"]], capacity)
    return joined([effect for effect in (in_place_effect(before, after, _gpus_per_node(capacity)), recut) if effect])


def _rotation(pool: str, head: Mapping[str, Any], resource: Mapping[str, Any]) -> Rotation:
    """The head's rotation: the stack output when there is one, else the resource's deleteBeforeReplace option."""
    outputs = head.get("outputs", {}).get("gpuPools", {})
    rotation = outputs.get(pool, {}).get("rotation") if isinstance(outputs, Mapping) else None
    if rotation in ("surge", "recreate"):
        return rotation
    return "recreate" if resource.get("options", {}).get("deleteBeforeReplace", True) else "surge"


# Each cloud's node pool resource in a plan: the input holding its cloud name, the one holding its node labels,
# and its fields fixed at creation.
_POOL_NAME_INPUT = {
    "azure-native:containerservice:AgentPool": "agentPoolName",
    "eks:index:ManagedNodeGroup": "nodeGroupName",
    "aws:eks/nodeGroup:NodeGroup": "nodeGroupName",
    NODEPOOL: "metadata.name",
}
_LABELS_INPUT = {
    "azure-native:containerservice:AgentPool": "nodeLabels",
    "eks:index:ManagedNodeGroup": "labels",
    "aws:eks/nodeGroup:NodeGroup": "labels",
    NODEPOOL: "spec.template.metadata.labels",
}
# Whether the resource's ``deleteBeforeReplace: false`` reaches the engine under one logical name: not for
# pulumi-eks's ManagedNodeGroup, whose own node group the AWS provider deletes first (platform/aws.py).
_CREATE_FIRST_OPTION_REACHES = {
    "azure-native:containerservice:AgentPool": True,
    "eks:index:ManagedNodeGroup": False,
    "aws:eks/nodeGroup:NodeGroup": True,
    NODEPOOL: True,
}
_FIXED_AT_CREATION: dict[str, Mapping[str, FixedAtCreation]] = {
    "azure-native:containerservice:AgentPool": AKS_AGENT_POOL,
    "eks:index:ManagedNodeGroup": EKS_NODE_GROUP,
    "aws:eks/nodeGroup:NodeGroup": EKS_NODE_GROUP,
    NODEPOOL: {},  # Pulumi updates a NodePool in place; Karpenter replaces drifted nodes itself (plan/in_place.py)
}


def pool_resource_types() -> tuple[str, ...]:
    """The resource types that hold a GPU pool (an AKS agent pool, an EKS node group)."""
    return tuple(_POOL_NAME_INPUT)


def _pool_resource(pool: str, plan: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The pool's cloud resource: the one whose node labels carry ``gpupools.io/pool=<pool>``."""
    for resource in plan.get("resources", []):
        key = _LABELS_INPUT.get(resource.get("type"))
        labels = _get(resource.get("inputs", {}), key) if key else None
        if isinstance(labels, Mapping) and labels.get(POOL_LABEL) == pool:
            return resource
    return None


def _get(inputs: Mapping[str, Any], path: str) -> Any:
    value: Any = inputs
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value
