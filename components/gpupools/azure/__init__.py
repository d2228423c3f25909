"""AKS components: the cluster (created or looked up) and MIG GPU node pools. Imports only the Azure SDK.

The Azure SDK is the ``azure`` extra; without it this package says so instead of a bare ModuleNotFoundError.
"""

try:
    import pulumi_azure_native  # noqa: F401  (cheap: the package loads its submodules lazily)
except ModuleNotFoundError as _missing:
    if _missing.name != "pulumi_azure_native":
        raise
    raise ModuleNotFoundError('gpupools.azure needs the Azure SDK: pip install "gpupools[azure]" '
                              "(pulumi_azure_native is not installed)", name=_missing.name) from None

from .cluster import AksCluster, AksClusterArgs  # noqa: E402
from .gpu_pool import AksGpuPool, AksGpuPoolArgs  # noqa: E402

__all__ = ["AksCluster", "AksClusterArgs", "AksGpuPool", "AksGpuPoolArgs"]
