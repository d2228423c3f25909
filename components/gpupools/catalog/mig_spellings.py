"""The one map of MIG's spellings: AKS ``MIG1g`` = NVIDIA's ``1g.5gb`` on an A100-40GB = the ``all-1g.5gb`` layout =
the device plugin's ``nvidia.com/mig-1g.5gb`` (``migStrategy: mixed``) = the DRA driver's device of type ``mig``,
profile ``1g.5gb``.

AKS names a profile by its compute slices only: ``MIG<n>g`` selects the smallest-memory profile of n slices on the
pool's GPU (``GpuModel.profile_for_slices``; aks-docs ``gpu-multi-instance.md``), so the map is computed from the GPU
table in ``gpus`` and the AKS values in ``clouds``, never written out a second time. ``gpupools sizes``, the plan and
the MIG rules all read it here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .clouds import AKS_GPU_INSTANCE_PROFILES
from .dra_driver import DRA_DRIVER_NAME, MIG_TYPE
from .gpus import GpuModel, MigProfile
from .labels import mig_resource_name


def aks_profile(gpu: GpuModel, aks_name: str) -> MigProfile | None:
    """The profile AKS's ``MIG<n>g`` creates on ``gpu``, or None (an AKS value this GPU has no profile for)."""
    return gpu.profile_for_slices(int(aks_name[3])) if aks_name in AKS_GPU_INSTANCE_PROFILES else None


def aks_names(gpu: GpuModel) -> list[str]:
    """The AKS ``gpuInstanceProfile`` values that select a profile on ``gpu``."""
    return [name for name in AKS_GPU_INSTANCE_PROFILES if aks_profile(gpu, name) is not None]


def aks_name_of(gpu: GpuModel, profile: MigProfile) -> str | None:
    """``MIG<n>g`` when it selects exactly this profile on ``gpu``; None for the others (e.g. ``1g.10gb``)."""
    return next((name for name in aks_names(gpu) if aks_profile(gpu, name) == profile), None)


@dataclass(frozen=True)
class MigSpelling:
    """One MIG profile on one GPU model, in every spelling a user meets."""

    gpu: str
    profile: str  # NVIDIA's, e.g. 1g.5gb (mig-parted, nvidia-smi, the DRA driver's ``profile`` attribute)
    aks: str | None  # AKS's gpuInstanceProfile, e.g. MIG1g (None where no AKS value selects it)
    layout: str  # NVIDIA's all-<profile> layout, the GPU Operator's nvidia.com/mig.config value
    resource: str  # the device plugin's resource with migStrategy mixed (single: nvidia.com/gpu)

    @property
    def dra_device(self) -> str:
        """The DRA driver's device: its driver, ``type`` and ``profile`` attributes."""
        return f"{DRA_DRIVER_NAME} device type={MIG_TYPE} profile={self.profile}"


def mig_spelling(gpu: GpuModel, profile: MigProfile) -> MigSpelling:
    return MigSpelling(
        gpu=gpu.name,
        profile=profile.name,
        aks=aks_name_of(gpu, profile),
        layout=f"all-{profile.layout_token}",
        resource=mig_resource_name(profile.name),
    )
