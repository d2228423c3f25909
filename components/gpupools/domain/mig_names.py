"""What a MIG pool's slices are called everywhere, for the plan: AKS ``MIG1g`` = ``1g.5gb`` on A100-40GB = the device
plugin's ``nvidia.com/mig-1g.5gb`` (or the DRA driver's device), read from the one map in ``catalog.mig_spellings``.

A user writes one spelling in the stack file, the cloud shows another, and pods request a third: the plan names
them side by side per pool, so nobody has to work the map out.
"""

from __future__ import annotations

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.dra_driver import DRA_DRIVER_NAME, GPU_TYPE
from ..catalog.labels import GPU_RESOURCE
from ..catalog.mig_spellings import mig_spelling
from .pools import ResolvedPool
from .stack import Stack

ITEM = "MIG"


def pool_mig_names(stack: Stack, pool: ResolvedPool) -> str | None:
    """``MIG1g = 1g.5gb on A100-40GB = nvidia.com/mig-1g.5gb`` per profile of the pool; None for a pool without MIG.

    The AKS name appears only where the cloud applies MIG itself; with ``migStrategy: single`` the device plugin
    advertises ``nvidia.com/gpu`` (the mixed name is given too); with the DRA driver, its device."""
    if pool.mig is None:
        return None
    native = cloud_named(stack.cloud).native_mig_profiles
    dra = stack.config.gpu_software.chosen_installer.uses_dra
    parts = []
    for name in pool.mig.profiles:
        profile = pool.gpu.profile(name)
        if profile is None:  # the MIG rules refuse a profile the GPU lacks: nothing to map
            continue
        spelling = mig_spelling(pool.gpu, profile)
        aks = f"{spelling.aks} = " if native and spelling.aks else ""
        if dra:
            where = spelling.dra_device
        elif pool.mig_strategy == "single":
            where = f"{GPU_RESOURCE} (migStrategy single; mixed: {spelling.resource})"
        else:
            where = spelling.resource
        parts.append(f"{aks}{spelling.profile} on {spelling.gpu} = {where}")
    node = pool.mig.node
    if not node.is_uniform:  # a per-GPU layout: its groups first, in device order
        parts.insert(0, f"per GPU: {node.describe()}")
    whole = node.whole_gpus
    if whole:  # a per-GPU layout's whole GPUs: the plain GPU resource (mixed), the driver's gpu device (DRA)
        where = f"{DRA_DRIVER_NAME} device type={GPU_TYPE}" if dra else GPU_RESOURCE
        parts.append(f"{whole} whole {pool.gpu.name} per node = {where}")
    return ", ".join(parts) or None


def mig_items(stack: Stack, pool: ResolvedPool) -> tuple[tuple[str, str], ...]:
    """The pool's MIG spelling as one more ``(name, value)`` of its plan line, or nothing."""
    names = pool_mig_names(stack, pool)
    return ((ITEM, names),) if names else ()
