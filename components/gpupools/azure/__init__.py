"""AKS components: the cluster (created or looked up) and MIG GPU node pools. Imports only the Azure SDK."""

from .cluster import AksCluster, AksClusterArgs
from .gpu_pool import AksGpuPool, AksGpuPoolArgs

__all__ = ["AksCluster", "AksClusterArgs", "AksGpuPool", "AksGpuPoolArgs"]
