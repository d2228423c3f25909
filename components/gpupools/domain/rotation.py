"""How a GPU pool is replaced when a field fixed at creation changes: ``recreate`` or ``surge``.

``recreate`` keeps the pool's cloud name, so the old pool must go before its replacement can take the name:
the pool's capacity is gone until the new one is up. ``surge`` gives each *generation* of the pool its own
cloud name, the config name plus a short hash of the values the component sends for the fields listed in
``catalog.fixed_fields`` (and of the config name, so truncated names stay apart). A changed fixed field gives a
new name, so the new pool can be created first and the old one deleted once it exists; a count or label
change keeps the name and updates in place. The name is a pure function of the config: the same inputs give
the same name on every run and machine (``naming``, ``ResolvedPool.generation``). Pure: no Pulumi.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal

from ..catalog.cloud import FixedFields, PoolNaming
from ..catalog.cloud_registry import cloud as cloud_named
from .pools import ResolvedPool

Order = Literal["create-first", "delete-first"]

# A surge pool with this many GPUs gets a plan warning: its replacement needs as many again meanwhile.
SURGE_WARNING_GPUS = 16


@dataclass(frozen=True)
class SurgeRotation:
    """A cloud's facet: its own warning for a ``surge`` pool (``pool``, its GPUs), or None for the general one."""

    capability: ClassVar[str] = "rotation surge"
    warning: Callable[[ResolvedPool, int], str | None]


def surge_warnings(pools: list[ResolvedPool]) -> list[str]:
    """What a surge costs, for pools big enough to matter: both generations' GPUs, and quota for them, meanwhile."""
    warnings = []
    for pool in pools:
        gpus = pool.gpus_per_node * pool.nodes
        if pool.rotation != "surge":
            continue
        own = cloud_named(pool.cloud).facet(SurgeRotation).warning(pool, gpus)
        if own is not None:
            warnings.append(own)
        elif gpus >= SURGE_WARNING_GPUS:
            warnings.append(
                f"pool {pool.name}: rotation surge: a change to a field fixed at creation creates the new "
                f"pool before deleting the old one, so {2 * gpus} {pool.gpu.name} GPUs ({2 * pool.nodes} "
                f"{pool.size.name}) and their quota are needed until the old pool is gone; set rotation: "
                "recreate to delete first instead"
            )
    return warnings


def replacement_order(rotation: str, new_resource: bool, create_first_option_reaches: bool) -> Order:
    """The one answer to "which comes first when a pool is replaced", read by the plan's text, Markdown and JSON and
    by the cost diff (an overlap is priced only when both generations run at once).

    ``recreate`` deletes first. ``surge`` creates first when the new generation is a new resource (its own logical
    name, so a new URN: the engine creates it while the program runs and deletes the old one, no longer registered,
    only after the program has finished, pulumi/pulumi v3.259.0 ``deployment_executor.go`` ``performPostSteps``),
    or when the resource's ``deleteBeforeReplace: false`` reaches the engine; otherwise (pulumi-eks's
    ManagedNodeGroup under one logical name) it is still delete-first.
    """
    if rotation != "surge":
        return "delete-first"
    return "create-first" if new_resource or create_first_option_reaches else "delete-first"


def fixed_field_names(cloud: str) -> set[str]:
    """The wire names ``catalog.fixed_fields`` lists for the cloud: what the generation must cover."""
    return set(cloud_named(cloud).facet(FixedFields).names)


def name_clashes(cloud: str, names: list[tuple[int, str, str]]) -> list[tuple[int, str]]:
    """(pool index, why) per cloud name reserved or already taken; ``names``: (index, config name, cloud name)."""
    clashes: list[tuple[int, str]] = []
    taken: dict[str, tuple[int, str]] = {}
    for index, pool, cloud_name in names:
        if cloud_name in cloud_named(cloud).facet(PoolNaming).reserved:
            clashes.append(
                (
                    index,
                    f"its cloud pool name '{cloud_name}' (from '{pool}') is reserved; rename the pool "
                    "or set rotation: recreate",
                )
            )
        elif cloud_name in taken:
            other_index, other = taken[cloud_name]
            clashes.append(
                (
                    index,
                    f"its cloud pool name '{cloud_name}' (from '{pool}') is also the cloud name of "
                    f"gpuPools[{other_index}] ('{other}'); rename one of them or set rotation: "
                    "recreate on one",
                )
            )
        else:
            taken[cloud_name] = (index, pool)
    return clashes
