"""EKS components: the cluster (created or looked up) and GPU managed node groups. Imports only AWS SDKs."""

from .cluster import EksCluster, EksClusterArgs
from .gpu_node_group import EksGpuNodeGroup, EksGpuNodeGroupArgs

__all__ = ["EksCluster", "EksClusterArgs", "EksGpuNodeGroup", "EksGpuNodeGroupArgs"]
