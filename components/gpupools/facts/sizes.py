"""Every catalog node size as one listing (``gpupools sizes``): its GPU model and count, its MIG profiles with their
slices, NVIDIA's named layouts, the sharing modes that apply, the regions where the packaged price snapshot has a
price, and the one spelling map of MIG: AKS ``MIG1g`` = ``1g.5gb`` on A100-40GB = ``nvidia.com/mig-1g.5gb``.

Without it the only list of sizes was inside an error message; everything here is read from ``catalog``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog.cloud_registry import cloud
from ..catalog.gpus import MigProfile
from ..catalog.instances import INSTANCE_SIZES, InstanceSize
from ..catalog.labels import GPU_RESOURCE
from ..catalog.mig_spellings import MigSpelling, mig_spelling
from ..catalog.prices import CAPACITIES, PriceBook, snapshot

FULL_GPU = "full GPU"
# Device plugin sharing of whole GPUs applies to every size; MIG only to a GPU that has profiles.
SHARED = ("timeSlicing", "mps")


@dataclass(frozen=True)
class ProfileRow:
    """One MIG profile on one GPU model, in each of its spellings (``catalog.mig_spellings``)."""

    profile: MigProfile
    spelling: MigSpelling
    native: bool  # the cloud applies MIG itself (AKS gpuInstanceProfile): its name for the profile applies

    @property
    def aks_name(self) -> str | None:
        """The AKS gpuInstanceProfile that selects it (only on clouds that apply MIG themselves)."""
        return self.spelling.aks if self.native else None

    @property
    def layout(self) -> str:
        """NVIDIA's all-<profile> layout (mig-parted, GPU Operator's nvidia.com/mig.config)."""
        return self.spelling.layout

    @property
    def resource(self) -> str:
        """What the device plugin advertises with migStrategy mixed (``single``: ``nvidia.com/gpu``)."""
        return self.spelling.resource

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile.name,
            "computeSlices": self.profile.compute_slices,
            "memorySlices": self.profile.memory_slices,
            "memoryGb": self.profile.memory_gb,
            "perGpu": self.profile.max_instances,
            "aks": self.aks_name,
            "layout": self.layout,
            "resourceMixed": self.resource,
            "resourceSingle": GPU_RESOURCE,
            "draDevice": self.spelling.dra_device,
        }


@dataclass(frozen=True)
class SizeRow:
    """One catalog size and what can be done with it."""

    size: InstanceSize
    profiles: tuple[ProfileRow, ...]
    layouts: dict[str, dict[str, int]]
    sharing: tuple[str, ...]
    price_regions: dict[str, tuple[str, ...]]  # capacity -> regions with a snapshot price

    def to_json(self) -> dict[str, Any]:
        gpu = self.size.gpu
        return {
            "size": self.size.name,
            "cloud": self.size.cloud,
            "gpu": gpu.name,
            "gpus": self.size.gpus,
            "gpuMemoryGb": gpu.memory_gb,
            "migProfiles": [row.to_json() for row in self.profiles],
            "layouts": self.layouts,
            "sharing": list(self.sharing),
            "priceRegions": {capacity: list(regions) for capacity, regions in self.price_regions.items()},
        }


def size_rows(cloud_name: str | None = None, size_name: str | None = None) -> list[SizeRow]:
    """The catalog's sizes (of one cloud, or one size), sorted by cloud then name."""
    book = snapshot()
    chosen = [
        size
        for size in INSTANCE_SIZES.values()
        if (cloud_name is None or size.cloud == cloud_name) and (size_name is None or size.name == size_name)
    ]
    return [_row(size, book) for size in sorted(chosen, key=lambda size: (size.cloud, size.name))]


def _row(size: InstanceSize, book: PriceBook) -> SizeRow:
    gpu = size.gpu
    native = cloud(size.cloud).native_mig_profiles
    profiles = tuple(ProfileRow(profile, mig_spelling(gpu, profile), native) for profile in gpu.profiles)
    sharing = (FULL_GPU, *(("mig",) if gpu.mig_capable else ()), *SHARED)
    regions = {
        capacity: tuple(sorted({p.region for p in book.prices if p.size == size.name and p.capacity == capacity}))
        for capacity in CAPACITIES
    }
    return SizeRow(size, profiles, gpu.layouts, sharing, {key: value for key, value in regions.items() if value})
