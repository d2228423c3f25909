"""What a demand asks of one node size: replicas per MIG profile of its GPU, and whole GPUs.

A workload names a profile (``slice``; when no size is given, another GPU's profile becomes the smallest one here
with at least its compute slices and memory), the memory one replica needs (the smallest profile whose name's GB holds
it: ``18Gi`` is 19.3 GB, so ``3g.20gb`` on an A100-40GB), or a whole GPU. What the cloud can express decides which
profiles are on offer: with the GPU Operator's MIG manager every profile and any valid per-GPU mix; with the
cloud's own per-pool profile (AKS ``gpuInstanceProfile`` ``MIG<n>g``) only the profile each ``MIG<n>g`` selects,
every GPU cut into as many as fit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.clouds import AKS_GPU_INSTANCE_PROFILES
from ..catalog.gpus import GPU_MODELS, GpuModel, MigProfile
from ..catalog.instances import InstanceSize
from ..config.demand import Demand, Workload
from ..domain.mig_layouts import Layout, valid_layouts


@dataclass(frozen=True)
class SizeRequest:
    """The demand on one size: profile per MIG workload, whole-GPU replicas, and the layouts a GPU may take."""

    size: InstanceSize
    profile_of: dict[str, str]  # workload name -> MIG profile, for MIG workloads
    whole: int  # GPUs for ``gpu: whole`` workloads
    layouts: tuple[Layout, ...]
    native_profiles: dict[str, str]  # profile -> the cloud's per-pool name (MIG1g), when the cloud cuts the GPUs

    def demand(self, workloads: list[Workload]) -> dict[str, int]:
        counts: dict[str, int] = {}
        for workload in workloads:
            profile = self.profile_of.get(workload.name)
            if profile is not None:
                counts[profile] = counts.get(profile, 0) + workload.count
        return counts


def uses_operator(demand: Demand) -> bool:
    return demand.mig_manager == "operator"


def size_request(demand: Demand, size: InstanceSize) -> tuple[SizeRequest | None, list[str]]:
    """The request on ``size``, or why the size cannot serve the demand (a profile it lacks, no MIG)."""
    gpu = size.gpu
    native: dict[str, str] = {}
    if not uses_operator(demand) and gpu.mig_capable:
        for name in AKS_GPU_INSTANCE_PROFILES:
            profile = gpu.profile_for_slices(int(name.removeprefix("MIG").removesuffix("g")))
            if profile is not None:
                native[profile.name] = name
    offered = [p for p in gpu.profiles if not native or p.name in native]
    profile_of: dict[str, str] = {}
    problems: list[str] = []
    whole = 0
    for workload in demand.workloads:
        if workload.gpu is not None:
            whole += workload.count
            continue
        if not gpu.mig_capable:
            problems.append(f"{size.name} has {gpu.name} GPUs, which do not support MIG (workload {workload.name})")
            continue
        found = _profile_for(workload, gpu, offered, translate=demand.size is None)
        if isinstance(found, str):
            problems.append(found)
        else:
            profile_of[workload.name] = found.name
    if problems:
        return None, problems
    if native:
        layouts = tuple(((p.name, p.max_instances),) for p in offered)
    else:
        layouts = valid_layouts(gpu) if gpu.mig_capable else ()
    return SizeRequest(size, profile_of, whole, layouts, native), []


def _profile_for(workload: Workload, gpu: GpuModel, offered: list[MigProfile], translate: bool) -> MigProfile | str:
    if workload.slice is not None:
        match = next((p for p in offered if p.name == workload.slice), None)
        if match is None and translate:
            match = _equivalent(workload.slice, offered)
        if match is None:
            allowed = ", ".join(p.name for p in offered)
            return (
                f"workload {workload.name}: {workload.slice} is not a MIG profile offered on {gpu.name}; "
                f"allowed: {allowed}"
            )
        return match
    need = workload.memory_gb
    assert need is not None
    fitting = [p for p in offered if not p.media_extensions and p.memory_gb >= need]
    if not fitting:
        return (
            f"workload {workload.name}: no MIG profile of {gpu.name} holds {workload.memory} "
            f"(the largest is {max(p.memory_gb for p in offered)} GB); ask for gpu: whole"
        )
    return min(fitting, key=lambda p: (p.memory_gb, p.compute_slices, p.memory_slices))


def _equivalent(name: str, offered: list[MigProfile]) -> MigProfile | None:
    """Another GPU's profile on this one (``1g.5gb`` of an A100-40GB on an A100-80GB): the smallest offered profile
    with at least its compute slices and its memory, so a demand written for one GPU can be priced on others."""
    known = next((p for gpu in GPU_MODELS.values() for p in gpu.profiles if p.name == name), None)
    if known is None:
        return None
    fitting = [
        p
        for p in offered
        if p.compute_slices >= known.compute_slices
        and p.memory_gb >= known.memory_gb
        and p.media_extensions == known.media_extensions
    ]
    return min(fitting, key=lambda p: (p.compute_slices, p.memory_gb, p.memory_slices), default=None)


def cloud_cuts_gpus(demand: Demand) -> str | None:
    """Why ``migManager: cloud`` cannot be honoured on the demand's cloud (it has no per-pool MIG profile)."""
    chosen = cloud_named(demand.cloud)
    if uses_operator(demand) or chosen.native_mig_profiles:
        return None
    return (
        f"{chosen.display_name} does not cut GPUs into MIG profiles itself; use migManager: operator "
        "(the GPU Operator's MIG manager)"
    )
