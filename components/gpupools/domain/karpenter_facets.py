"""Karpenter's domain facets: the labels its nodes register with (for the placement check) and the inputs that buy
a Karpenter pool's capacity (for the plan's capacity inputs line)."""

from __future__ import annotations

from ..catalog.provisioners import KARPENTER
from ..config.models import KarpenterPoolConfig, StackConfig
from .capacity_inputs import PROVISIONER_INPUTS
from .karpenter_objects import capacity_type, karpenter_node_labels, overlay_capacity
from .pools import NODE_LABELS, PROMISED_CAPACITY, ResolvedPool


def karpenter_inputs(config: StackConfig, pool: ResolvedPool) -> list[tuple[str, str]]:
    settings = pool.config.karpenter or KarpenterPoolConfig()
    cluster = config.cluster
    overlay = overlay_capacity(pool)
    disruption = (
        f"{settings.consolidation_policy} after {settings.consolidate_after}, budget {settings.budget} node(s), "
        f"expireAfter {settings.expire_after or '720h (Karpenter default)'}, "
        f"terminationGracePeriod {settings.termination_grace_period or 'none (waits)'}"
    )
    subnets = pool.config.subnet_ids or (cluster.subnet_ids if cluster else [])
    return [
        ("provisioner", f"Karpenter NodePool, 0..{pool.config.max_count} nodes for pending pods"),
        ("capacity type", capacity_type(pool)),
        ("reservation", pool.config.capacity_reservation or "none"),
        ("subnets", ", ".join(subnets) if subnets else "the cluster's, by id"),
        ("zones", ", ".join(settings.zones) or "its subnets'"),
        ("disruption", disruption),
        (
            "NodeOverlay",
            ", ".join(f"{count}x {name}" for name, count in overlay.items()) if overlay else "none (EC2's GPU count)",
        ),
        (
            "identity",
            "the Karpenter node role, created by gpupools"
            if cluster is not None and cluster.create
            else "the existing cluster's node role (nodeRoleArn)",
        ),
    ]


KARPENTER.attach(NODE_LABELS, karpenter_node_labels)
KARPENTER.attach(PROVISIONER_INPUTS, karpenter_inputs)
KARPENTER.attach(PROMISED_CAPACITY, overlay_capacity)
