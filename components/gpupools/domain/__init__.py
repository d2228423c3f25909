"""A validated stack and pure arithmetic on it: pools, capacity, rotation naming, node templates, workloads.

Nothing here validates: ``gpupools.resolve.load_stack`` is the only builder of a ``Stack``.
"""

# Each cloud's domain facets attach to its ``Cloud`` here, before any function of this layer can ask for them.
from . import aws_cloud, azure_cloud  # noqa: F401

# Each node provisioner's domain facets attach to it here.
from . import karpenter_facets  # noqa: F401
from .capacity import PoolCapacity, advertised_resources, pool_capacity, stack_capacity
from .node_layout import GpuGroup, NodeLayout
from .pools import MigPlan, ResolvedPool
from .stack import Placement, Stack

__all__ = [
    "GpuGroup",
    "MigPlan",
    "NodeLayout",
    "Placement",
    "PoolCapacity",
    "ResolvedPool",
    "Stack",
    "advertised_resources",
    "pool_capacity",
    "stack_capacity",
]
