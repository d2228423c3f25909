"""EKS components: the cluster (created or looked up) and GPU managed node groups. Imports only AWS SDKs.

The AWS SDKs are the ``aws`` extra; without them this package says so instead of a bare ModuleNotFoundError.
"""

try:
    import pulumi_aws  # noqa: F401  (cheap: the packages load their submodules lazily)
    import pulumi_eks  # noqa: F401
except ModuleNotFoundError as _missing:
    if _missing.name not in ("pulumi_aws", "pulumi_eks"):
        raise
    raise ModuleNotFoundError('gpupools.aws needs the AWS SDKs: pip install "gpupools[aws]" '
                              f"({_missing.name} is not installed)", name=_missing.name) from None

from .cluster import EksCluster, EksClusterArgs  # noqa: E402
from .gpu_node_group import EksGpuNodeGroup, EksGpuNodeGroupArgs  # noqa: E402

__all__ = ["EksCluster", "EksClusterArgs", "EksGpuNodeGroup", "EksGpuNodeGroupArgs"]
