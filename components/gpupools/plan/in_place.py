"""In-place updates that still disturb a pool's capacity: what the cloud does when an updatable field changes.

Today one: an AKS pool's capacity reservation group. AKS updates it without replacing the pool, but not
without touching the nodes (use-capacity-reservation-groups, "Associate an existing capacity reservation group
with an existing node pool (Preview)"):

- "For zonal node pools with running nodes, AKS updates the existing Virtual Machine Scale Set (VMSS) and performs
  a rolling reimage. [...] It cordons and drains nodes in batches based on the node pool's upgrade settings";
- "For non-zonal (regional) node pools during the preview, first scale the node pool to zero, then apply the
  capacity reservation group."

So a regional pool with nodes cannot take the new group in one ``pulumi up``: the update is refused, or, done as
AKS asks, the pool's whole capacity is offline between the two deployments. ``check`` sees one stack and cannot
tell a change from a first deployment, so the capacity diff (two plans) says it, and its headline leads with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

AGENT_POOL = "azure-native:containerservice:AgentPool"
CRG_INPUT = "capacityReservationGroupID"


@dataclass(frozen=True)
class InPlaceEffect:
    """What an in-place update does to a pool's nodes; ``outage`` when its whole capacity must go offline."""

    what: str
    outage: bool
    # Why the capacity is offline, for the headline; and the commands to run around ``pulumi up`` (plan/recut.py).
    offline_why: str = "must first be scaled to zero"
    steps: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"description": self.what, "outage": self.outage, **({"steps": list(self.steps)} if self.steps else {})}


def joined(effects: list[InPlaceEffect]) -> InPlaceEffect | None:
    """Several in-place effects of one update as one (an AKS pool may change its group and its layout at once)."""
    if len(effects) <= 1:
        return effects[0] if effects else None
    offline = [effect for effect in effects if effect.outage]
    return InPlaceEffect(
        "; ".join(effect.what for effect in effects),
        outage=bool(offline),
        offline_why=offline[0].offline_why if offline else effects[0].offline_why,
        steps=tuple(step for effect in effects for step in effect.steps if step),
    )


def in_place_effect(before: Mapping[str, Any], after: Mapping[str, Any], gpus_per_node: int) -> InPlaceEffect | None:
    """The effect of updating the pool resource ``before`` to ``after`` (same type, not replaced), if any."""
    if before.get("type") != AGENT_POOL:
        return None
    old, new = before["inputs"].get(CRG_INPUT), after["inputs"].get(CRG_INPUT)
    if old == new:
        return None
    change = f"capacityReservationGroupId {_group(old)} → {_group(new)}"
    nodes = _nodes(before["inputs"])
    if after["inputs"].get("availabilityZones"):
        return InPlaceEffect(
            f"{change}: AKS reimages the zonal pool's nodes in place, cordoned and drained in batches "
            "by its upgrade settings (surge nodes need matching reserved capacity)",
            outage=False,
        )
    if not nodes:
        return InPlaceEffect(f"{change}: applied in place (the regional pool has no nodes)", outage=False)
    return InPlaceEffect(
        f"{change} on a regional pool with {nodes} nodes: AKS takes a new group on a regional pool only at zero nodes "
        '("first scale the node pool to zero, then apply the capacity reservation group"), so pulumi up fails '
        f"as planned; deploy count: 0 first (its {_gpus(nodes, gpus_per_node)} GPUs offline), then the group with "
        "the count back",
        outage=True,
    )


def _nodes(inputs: Mapping[str, Any]) -> str:
    """The nodes the pool may have now: its count, or up to maxCount when AKS's autoscaler sizes it."""
    if inputs.get("enableAutoScaling"):
        return f"up to {inputs.get('maxCount')}"
    return str(inputs["count"]) if inputs.get("count") else ""


def _gpus(nodes: str, gpus_per_node: int) -> str:
    count = int(nodes.removeprefix("up to "))
    return f"{'up to ' if nodes.startswith('up to') else ''}{count * gpus_per_node}"


def _group(group: Any) -> str:
    """A group by its name (the last segment of its id), or none."""
    return str(group).rstrip("/").rsplit("/", 1)[-1] if group else "none"
