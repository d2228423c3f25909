"""Karpenter pools in ``verify``: each pool's NodePool is there, and the nodes its NodeClaims became advertise what
the pool's NodeOverlay promised Karpenter. An overlay that said 56 slices on a node that shows 0 means the overlay
is wrong or the MIG manager failed: Karpenter keeps launching nodes for pods that can never run there.

Reads NodePools and NodeClaims (``karpenter.sh/v1``) through the same bounded, typed lists as every other read.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..catalog.labels import MIG_CONFIG_STATES_IN_PROGRESS
from ..catalog.provisioners import KARPENTER_NODEPOOL_LABEL
from ..domain.pools import PROMISED_CAPACITY
from ..domain.stack import Stack
from .cluster import ClusterReader, NodeState
from .report import Mismatch, VerifyReport


@dataclass(frozen=True)
class PromisedPool:
    """A pool whose provisioner was told, before any node existed, what each node would advertise."""

    pool: str
    capacity: dict[str, int]


def promised_pools(stack: Stack) -> list[PromisedPool]:
    found = []
    for pool in stack.pools:
        provisioner = pool.provisioner
        promised = provisioner.facet(PROMISED_CAPACITY)(pool) if provisioner.supports(PROMISED_CAPACITY) else None
        if promised:
            found.append(PromisedPool(pool.name, promised))
    return found


def with_promise_mismatches(report: VerifyReport, promised: list[PromisedPool], reader: ClusterReader) -> VerifyReport:
    """The report with, per promised pool, a missing NodePool or the nodes lacking what its overlay promised."""
    present = {nodepool.metadata.name for nodepool in reader.karpenter_nodepools()}
    by_pool = {p.pool: p for p in promised}
    pools = []
    for result in report.pools:
        promise = by_pool.get(result.expectation.pool)
        if promise is None:
            pools.append(result)
            continue
        found = promise_mismatches(promise, promise.pool in present, _claimed_nodes(reader, promise), result.nodes)
        pools.append(dataclasses.replace(result, mismatches=[*result.mismatches, *found]))
    return dataclasses.replace(report, pools=pools)


def _claimed_nodes(reader: ClusterReader, promise: PromisedPool) -> list[str]:
    claims = reader.nodeclaims(f"{KARPENTER_NODEPOOL_LABEL}={promise.pool}")
    ours = [c for c in claims if (c.metadata.labels or {}).get(KARPENTER_NODEPOOL_LABEL) == promise.pool]
    return sorted(claim.status.nodeName for claim in ours if claim.status and claim.status.nodeName)


def promise_mismatches(
    promise: PromisedPool, nodepool_present: bool, claimed: list[str], nodes: list[NodeState]
) -> list[Mismatch]:
    """One line for a missing NodePool; one per promised resource its claimed nodes lack."""
    if not nodepool_present:
        return [Mismatch(promise.pool, None, "NodePool (karpenter.sh/v1)", promise.pool, "missing")]
    states = {node.name: node for node in nodes}
    found = []
    for resource, promised in sorted(promise.capacity.items()):
        short = [(name, states[name].allocatable.get(resource, 0) if name in states else 0) for name in claimed]
        short = [(name, got) for name, got in short if got < promised]
        if not short:
            continue
        settling = any(
            name not in states or states[name].mig_config_state in MIG_CONFIG_STATES_IN_PROGRESS for name, _ in short
        )
        got = ", ".join(f"{count} on {name}" for name, count in short)
        found.append(
            Mismatch(
                promise.pool,
                None,
                f"{resource} per node that its NodeOverlay promised Karpenter",
                str(promised),
                f"{got}: the overlay is wrong or the MIG manager failed",
                in_progress=settling,
            )
        )
    return found
