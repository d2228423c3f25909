"""AWS's domain facets, attached to its ``Cloud`` when ``gpupools.domain`` is imported: node group generations,
capacity inputs, rotation and scale from zero as EKS does them."""

from __future__ import annotations

from ..catalog.cloud_registry import cloud
from ..catalog.clouds import DEFAULT_AMI_TYPE
from .capacity_inputs import PoolCapacityInputs, eks_inputs
from .node_templates import NodeTemplate, ScaleFromZero
from .pools import PoolGeneration, ResolvedPool, eks_fixed_fields
from .rotation import SurgeRotation


def _from_zero(pool: ResolvedPool, template: NodeTemplate) -> tuple[bool, str]:
    bounds = pool.config.autoscaling
    assert bounds is not None
    why = "Auto Scaling group node-template tags give the autoscaler the slices, labels and taints"
    return True, why if bounds.min_count == 0 else f"minCount {bounds.min_count} keeps a node; {why}"


def _surge_warning(pool: ResolvedPool, gpus: int) -> str | None:
    """None: EKS surge is create-first (each generation a resource of its own), so the general warning holds."""
    return None


AWS = cloud("aws")
AWS.attach(PoolGeneration(lambda pool: eks_fixed_fields(pool, list(pool.cluster_subnet_ids), DEFAULT_AMI_TYPE)))
AWS.attach(PoolCapacityInputs(eks_inputs))
AWS.attach(SurgeRotation(_surge_warning))
AWS.attach(ScaleFromZero(_from_zero))
