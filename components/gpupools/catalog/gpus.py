"""MIG-capable (and a few MIG-less) GPU models with their MIG profiles and NVIDIA's named layouts.

Facts come from NVIDIA's mig-parted default config shipped with GPU Operator v26.7.0
(`default-mig-parted-config`) and the MIG user guide's slice rules; see
`docs/sources.md`. Everything here is plain data so validation and capacity can reuse it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class MigProfile:
    """One MIG GPU-instance profile, e.g. ``1g.5gb``: its slices and how many fit one GPU."""

    name: str
    compute_slices: int
    memory_slices: int
    memory_gb: int
    max_instances: int

    @property
    def media_extensions(self) -> bool:
        """``+me`` profiles own the GPU's single media-extension engine set."""
        return "+me" in self.name

    @property
    def layout_token(self) -> str:
        """How NVIDIA spells the profile inside an ``all-<profile>`` layout name."""
        return self.name.replace("+", ".")


@dataclass(frozen=True)
class GpuModel:
    """A GPU model: memory, MIG geometry, PCI device ids (for mig-parted device filters)."""

    name: str
    memory_gb: int
    compute_slices: int = 0
    memory_slices: int = 0
    profiles: tuple[MigProfile, ...] = ()
    pci_device_ids: tuple[str, ...] = ()
    balanced: Mapping[str, int] = field(default_factory=dict)

    @property
    def mig_capable(self) -> bool:
        return bool(self.profiles)

    def profile(self, name: str) -> MigProfile | None:
        return next((p for p in self.profiles if p.name == name), None)

    def profile_for_slices(self, compute_slices: int) -> MigProfile | None:
        """The smallest-memory profile with this many compute slices (what AKS ``MIG<n>g`` selects)."""
        candidates = [p for p in self.profiles if p.compute_slices == compute_slices and not p.media_extensions]
        return min(candidates, key=lambda p: p.memory_slices) if candidates else None

    @property
    def layouts(self) -> dict[str, dict[str, int]]:
        """NVIDIA's named layouts for this GPU: ``all-<profile>`` for each profile, and ``all-balanced``."""
        named = {f"all-{p.layout_token}": {p.name: p.max_instances} for p in self.profiles}
        if self.balanced:
            named["all-balanced"] = dict(self.balanced)
        return named


def _seven_slice(
    name: str, memory_gb: int, sizes: tuple[int, int, int, int, int, int], pci: tuple[str, ...]
) -> GpuModel:
    """A 7-compute/8-memory-slice GPU (A100, H100, H200, B200) from the GB figures in its profile names.

    ``sizes`` are the GB in the names of 1g, 1g (double memory), 2g, 3g, 4g and 7g, in that order; slice
    counts and per-GPU maxima follow the MIG user guide and NVIDIA's ``all-<profile>`` layouts.
    """
    one, one_big, two, three, four, seven = sizes
    profiles = (
        MigProfile(f"1g.{one}gb", 1, 1, one, 7),
        MigProfile(f"1g.{one}gb+me", 1, 1, one, 1),
        MigProfile(f"1g.{one_big}gb", 1, 2, one_big, 4),
        MigProfile(f"2g.{two}gb", 2, 2, two, 3),
        MigProfile(f"3g.{three}gb", 3, 4, three, 2),
        MigProfile(f"4g.{four}gb", 4, 4, four, 1),
        MigProfile(f"7g.{seven}gb", 7, 8, seven, 1),
    )
    balanced = {f"1g.{one}gb": 2, f"2g.{two}gb": 1, f"3g.{three}gb": 1}
    return GpuModel(name, memory_gb, 7, 8, profiles, pci, balanced)


A100_40GB = _seven_slice(
    "A100-40GB", 40, (5, 10, 10, 20, 20, 40), ("0x20B010DE", "0x20B110DE", "0x20F110DE", "0x20F610DE")
)
A100_80GB = _seven_slice(
    "A100-80GB", 80, (10, 20, 20, 40, 40, 80), ("0x20B210DE", "0x20B510DE", "0x20F310DE", "0x20F510DE")
)
H100_80GB = _seven_slice(
    "H100-80GB", 80, (10, 20, 20, 40, 40, 80), ("0x233010DE", "0x233110DE", "0x232210DE", "0x232410DE")
)
H100_NVL_94GB = _seven_slice("H100-NVL-94GB", 94, (12, 24, 24, 47, 47, 94), ("0x232110DE", "0x233A10DE"))
H200_141GB = _seven_slice("H200-141GB", 141, (18, 35, 35, 71, 71, 141), ("0x233510DE", "0x233B10DE"))
B200_180GB = _seven_slice("B200-180GB", 180, (23, 45, 45, 90, 90, 180), ("0x290110DE",))
A30_24GB = GpuModel(
    "A30-24GB",
    24,
    compute_slices=4,
    memory_slices=4,
    profiles=(
        MigProfile("1g.6gb", 1, 1, 6, 4),
        MigProfile("1g.6gb+me", 1, 1, 6, 1),
        MigProfile("2g.12gb", 2, 2, 12, 2),
        MigProfile("2g.12gb+me", 2, 2, 12, 1),
        MigProfile("4g.24gb", 4, 4, 24, 1),
    ),
    pci_device_ids=("0x20B710DE",),
    balanced={"1g.6gb": 2, "2g.12gb": 1},
)

# GPUs without MIG that GPU VM sizes commonly carry: full GPUs, time-slicing and MPS only.
V100_16GB = GpuModel("V100-16GB", 16)
T4_16GB = GpuModel("T4-16GB", 16)
A10_24GB = GpuModel("A10-24GB", 24)
A10G_24GB = GpuModel("A10G-24GB", 24)
L4_24GB = GpuModel("L4-24GB", 24)
L40S_48GB = GpuModel("L40S-48GB", 48)
M60_8GB = GpuModel("M60-8GB", 8)

GPU_MODELS: dict[str, GpuModel] = {
    gpu.name: gpu
    for gpu in (
        A100_40GB,
        A100_80GB,
        H100_80GB,
        H100_NVL_94GB,
        H200_141GB,
        B200_180GB,
        A30_24GB,
        V100_16GB,
        T4_16GB,
        A10_24GB,
        A10G_24GB,
        L4_24GB,
        L40S_48GB,
        M60_8GB,
    )
}


def gpu_model(name: str) -> GpuModel | None:
    return GPU_MODELS.get(name)
