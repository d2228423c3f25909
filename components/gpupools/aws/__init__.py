"""EKS components: the cluster (created or looked up) and GPU managed node groups. Imports only AWS SDKs.

The AWS SDKs are the ``aws`` extra; without them this package says so instead of a bare ModuleNotFoundError.
Importing them warns about classes gpupools never uses (pulumi-aws' EncryptionControl, pulumi-eks' NodeGroup);
those import-time DeprecationWarnings are silenced here, so a user's own tests of a component do not show them.
"""

import warnings

from ..catalog.extras import require_extra

require_extra("aws", "gpupools.aws")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from .cluster import EksCluster, EksClusterArgs  # noqa: E402
    from .gpu_node_group import EksGpuNodeGroup, EksGpuNodeGroupArgs  # noqa: E402

__all__ = ["EksCluster", "EksClusterArgs", "EksGpuNodeGroup", "EksGpuNodeGroupArgs"]
