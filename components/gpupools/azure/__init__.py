"""AKS components: the cluster (created or looked up) and MIG GPU node pools. Imports only the Azure SDK.

The Azure SDK is the ``azure`` extra; without it this package says so instead of a bare ModuleNotFoundError.
"""

from ..catalog.extras import require_extra

require_extra("azure", "gpupools.azure")

from .cluster import AksCluster, AksClusterArgs  # noqa: E402
from .gpu_pool import AksGpuPool, AksGpuPoolArgs  # noqa: E402

__all__ = ["AksCluster", "AksClusterArgs", "AksGpuPool", "AksGpuPoolArgs"]
