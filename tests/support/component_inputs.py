"""Args a component accepts as they are, for tests that vary one or two of them."""

from __future__ import annotations

# An AksGpuPool of one Standard_ND96asr_v4 node cut into MIG1g slices.
AKS_MIG1G_POOL = {
    "cluster_name": "gpu-dev",
    "resource_group_name": "gpu-dev-rg",
    "pool_name": "mig1g",
    "vm_size": "Standard_ND96asr_v4",
    "count": 1,
    "gpu_instance_profile": "MIG1g",
}
