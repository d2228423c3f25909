"""Azure's domain facets, attached to its ``Cloud`` when ``gpupools.domain`` is imported: pool generations, capacity
inputs, rotation and scale from zero as AKS does them."""

from __future__ import annotations

from ..catalog.cloud_registry import cloud
from ..catalog.labels import GPU_RESOURCE
from .capacity_inputs import PoolCapacityInputs, aks_inputs
from .node_templates import NodeTemplate, ScaleFromZero, aks_zero_problem
from .pools import PoolGeneration, ResolvedPool, aks_fixed_fields
from .rotation import SurgeRotation


def _from_zero(pool: ResolvedPool, template: NodeTemplate) -> tuple[bool, str]:
    bounds = pool.config.autoscaling
    assert bounds is not None
    problem = aks_zero_problem(pool)
    if problem is not None:
        return False, f"minCount {bounds.min_count} keeps a node up; {problem}"
    gpus = pool.gpus_per_node
    return True, (
        f"the AKS template has {gpus}x {GPU_RESOURCE} from the VM size; the pool advertises "
        f"{template.resources.get(GPU_RESOURCE, 0)} (template tags set, not documented as read by AKS)"
    )


def _surge_warning(pool: ResolvedPool, gpus: int) -> str | None:
    return None  # AKS creates the new agent pool first: the general warning applies


AZURE = cloud("azure")
AZURE.attach(PoolGeneration(lambda pool: aks_fixed_fields(pool, pool.gpu_driver)))
AZURE.attach(PoolCapacityInputs(aks_inputs))
AZURE.attach(SurgeRotation(_surge_warning))
AZURE.attach(ScaleFromZero(_from_zero))
