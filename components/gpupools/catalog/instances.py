"""GPU VM sizes (Azure) and instance types (AWS): which GPU model and how many per node.

A size missing here can be declared in stack config (``gpupools:customSizes``) without a code change;
``resolve_size`` merges both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .cloud_registry import cloud_names, cloud_of_size_name
from .gpus import (
    A10_24GB,
    A10G_24GB,
    A100_40GB,
    A100_80GB,
    B200_180GB,
    GPU_MODELS,
    H100_80GB,
    H100_NVL_94GB,
    H200_141GB,
    L4_24GB,
    L40S_48GB,
    M60_8GB,
    T4_16GB,
    V100_16GB,
    GpuModel,
)

CLOUDS: tuple[str, ...] = cloud_names()  # the built-in clouds (the registry knows any added later)


@dataclass(frozen=True)
class InstanceSize:
    """A node size: its cloud, GPU model, GPUs per node and (EC2) EFA interfaces."""

    name: str
    cloud: str
    gpu: GpuModel
    gpus: int
    efa_interfaces: int = 0  # EC2 "maximum EFA interfaces"; 0 = no EFA (every Azure size)


def _family(cloud: str, gpu: GpuModel, counts: Mapping[str, int]) -> list[InstanceSize]:
    return [InstanceSize(name, cloud, gpu, n) for name, n in counts.items()]


def _azure(gpu: GpuModel, **counts: int) -> list[InstanceSize]:
    return _family("azure", gpu, counts)


def _aws(gpu: GpuModel, counts: Mapping[str, int]) -> list[InstanceSize]:
    return [InstanceSize(name, "aws", gpu, n, EFA_INTERFACES.get(name, 0)) for name, n in counts.items()]


# EFA interfaces per EC2 instance type (EC2 User Guide, "Supported instance types" for EFA and the accelerated
# computing network specifications); types absent here have none.
EFA_INTERFACES: dict[str, int] = {
    "p4d.24xlarge": 4,
    "p4de.24xlarge": 4,
    "p5.48xlarge": 32,
    "p5e.48xlarge": 32,
    "p5en.48xlarge": 16,
    "p6-b200.48xlarge": 8,
    "g5.8xlarge": 1,
    "g5.12xlarge": 1,
    "g5.16xlarge": 1,
    "g5.24xlarge": 1,
    "g5.48xlarge": 1,
    "g6.8xlarge": 1,
    "g6.12xlarge": 1,
    "g6.16xlarge": 1,
    "g6.24xlarge": 1,
    "g6.48xlarge": 1,
    "g6e.8xlarge": 1,
    "g6e.12xlarge": 1,
    "g6e.16xlarge": 1,
    "g6e.24xlarge": 2,
    "g6e.48xlarge": 4,
}


# EC2 families whose every size has local NVMe instance-store volumes (EC2 User Guide, "Instance store volume limits
# for EC2 instances", accelerated computing; read 2026-11-28). A Karpenter pool of these sizes gets
# ``instanceStorePolicy: RAID0`` (karpenter docs v1.14 concepts/nodeclasses.md), so ephemeral storage is the NVMe.
LOCAL_NVME_FAMILIES = ("p4d.", "p4de.", "p5.", "p5e.", "p5en.", "p6-b200.", "g5.", "g6.", "g6e.")


def has_local_nvme(size_name: str) -> bool:
    return size_name.startswith(LOCAL_NVME_FAMILIES)


_AZURE = [
    *_azure(A100_40GB, Standard_ND96asr_v4=8),
    *_azure(A100_80GB, Standard_ND96amsr_A100_v4=8),
    *_azure(A100_80GB, Standard_NC24ads_A100_v4=1, Standard_NC48ads_A100_v4=2, Standard_NC96ads_A100_v4=4),
    *_azure(H100_NVL_94GB, Standard_NC40ads_H100_v5=1, Standard_NC80adis_H100_v5=2),
    *_azure(H100_80GB, Standard_ND96isr_H100_v5=8),
    *_azure(H200_141GB, Standard_ND96isr_H200_v5=8),
    *_azure(V100_16GB, Standard_NC6s_v3=1, Standard_NC12s_v3=2, Standard_NC24s_v3=4, Standard_NC24rs_v3=4),
    *_azure(T4_16GB, Standard_NC4as_T4_v3=1, Standard_NC8as_T4_v3=1, Standard_NC16as_T4_v3=1, Standard_NC64as_T4_v3=4),
    *_azure(A10_24GB, Standard_NV36ads_A10_v5=1, Standard_NV72ads_A10_v5=2),
    *_azure(M60_8GB, Standard_NV12s_v3=1, Standard_NV24s_v3=2, Standard_NV48s_v3=4),
]

_AWS = [
    *_aws(A100_40GB, {"p4d.24xlarge": 8}),
    *_aws(A100_80GB, {"p4de.24xlarge": 8}),
    *_aws(H100_80GB, {"p5.4xlarge": 1, "p5.48xlarge": 8}),
    *_aws(H200_141GB, {"p5e.48xlarge": 8, "p5en.48xlarge": 8}),
    *_aws(B200_180GB, {"p6-b200.48xlarge": 8}),
    *_aws(
        A10G_24GB,
        {
            "g5.xlarge": 1,
            "g5.2xlarge": 1,
            "g5.4xlarge": 1,
            "g5.8xlarge": 1,
            "g5.16xlarge": 1,
            "g5.12xlarge": 4,
            "g5.24xlarge": 4,
            "g5.48xlarge": 8,
        },
    ),
    *_aws(
        L4_24GB,
        {
            "g6.xlarge": 1,
            "g6.2xlarge": 1,
            "g6.4xlarge": 1,
            "g6.8xlarge": 1,
            "g6.16xlarge": 1,
            "g6.12xlarge": 4,
            "g6.24xlarge": 4,
            "g6.48xlarge": 8,
        },
    ),
    *_aws(
        L40S_48GB,
        {
            "g6e.xlarge": 1,
            "g6e.2xlarge": 1,
            "g6e.4xlarge": 1,
            "g6e.8xlarge": 1,
            "g6e.16xlarge": 1,
            "g6e.12xlarge": 4,
            "g6e.24xlarge": 4,
            "g6e.48xlarge": 8,
        },
    ),
]

INSTANCE_SIZES: dict[str, InstanceSize] = {size.name: size for size in (*_AZURE, *_AWS)}


def resolve_size(name: str, custom: Mapping[str, InstanceSize] | None = None) -> InstanceSize | None:
    """A size from stack config first (so users can override), then from the built-in catalog."""
    if custom and name in custom:
        return custom[name]
    return INSTANCE_SIZES.get(name)


def sizes_for(cloud: str) -> list[str]:
    return sorted(name for name, size in INSTANCE_SIZES.items() if size.cloud == cloud)


__all__ = ["CLOUDS", "GPU_MODELS", "INSTANCE_SIZES", "InstanceSize", "cloud_of_size_name", "resolve_size", "sizes_for"]
