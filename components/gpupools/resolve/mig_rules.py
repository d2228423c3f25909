"""MIG rules: the per-GPU devices a pool's ``mig`` asks for, whether they fit one GPU, and who applies them.

AKS sets one profile per pool at creation (``gpuInstanceProfile``, every GPU fully cut); anything else is the GPU
Operator's MIG manager's job, from the node label ``nvidia.com/mig.config``. The migStrategy decides how the
devices are advertised, so a mix of profiles needs ``mixed``.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping

from ..catalog.gpus import GpuModel
from ..catalog.instances import INSTANCE_SIZES
from ..catalog.labels import MIG_CONFIG_LABEL
from ..catalog.cloud import KubernetesOffer
from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.clouds import AKS_GPU_INSTANCE_PROFILES
from ..catalog.mig_spellings import aks_name_of, aks_names, aks_profile
from ..config.errors import Problem, field_path
from ..config.models import GpuPoolConfig, StackConfig
from ..domain.mig_layouts import canonical, check_layout, describe
from ..domain.node_layout import GpuGroup, NodeLayout
from ..domain.pools import MigPlan
from ..untrusted.lookup import did_you_mean

AKS_PROFILE = re.compile(r"MIG([0-9])g")


def plan_mig(
    config: StackConfig, pool: GpuPoolConfig, gpu: GpuModel, path: Callable[..., str], gpus: int
) -> tuple[MigPlan | None, list[Problem]]:
    """Decide what each of a node's ``gpus`` GPUs is cut into, and whether AKS or the GPU Operator applies it."""
    assert pool.mig is not None
    key = "profile" if pool.mig.profile else "layout"
    no_mig = size_mig_problem(pool.size, gpu)
    if no_mig:
        return None, [Problem(path("mig", key), f"{no_mig}; or remove mig")]
    if isinstance(pool.mig.layout, list):
        node, layout_name, custom, problems = _per_gpu_node(pool, gpu, path, gpus)
    else:
        devices, layout_name, custom, problems = _mig_devices(pool, gpu, path)
        if not problems:  # a named layout or a profile's all-<profile> obeys the same placement rule as a custom mix
            problems = [Problem(path("mig", key), f"{m} ({pool.size})") for m in layout_fit_problems(gpu, devices)]
        node = NodeLayout.uniform(gpus, devices)
    if problems:
        return None, problems
    software = config.gpu_software
    native = cloud_named(config.cloud).native_mig_profiles
    operator_layouts = software.manages_mig_layouts and (not native or software.driver == "operator")
    aks_profile = _aks_profile_for(gpu, node)
    if native and not operator_layouts:
        if aks_profile is None:
            return None, [
                Problem(
                    path("mig", key),
                    f"AKS sets one MIG profile per pool (gpuInstanceProfile "
                    f"{'/'.join(AKS_GPU_INSTANCE_PROFILES)}, every GPU fully cut); "
                    f"{_describe(node)} needs the GPU Operator's MIG manager: set "
                    "gpuSoftware.installer gpu-operator and "
                    "gpuSoftware.driver operator",
                )
            ]
        # Azure Linux on these sizes is refused for every pool (azure_rules), MIG or not. The autoscaler is
        # allowed from one node up (azure_rules.autoscaling_problems).
        return MigPlan(node, layout_name, "aks", custom, aks_profile), []
    if not native and not software.manages_mig_layouts:
        service = cloud_named(config.cloud).facet(KubernetesOffer).service
        return None, [
            Problem(
                path("mig"),
                f"on {service} MIG layouts are applied by the GPU Operator's MIG manager; the "
                "device plugin cannot partition GPUs: set gpuSoftware.installer "
                "gpu-operator",
            )
        ]
    return MigPlan(node, layout_name, "operator", custom), []


def _per_gpu_node(
    pool: GpuPoolConfig, gpu: GpuModel, path: Callable[..., str], gpus: int
) -> tuple[NodeLayout, str, bool, list[Problem]]:
    """A per-GPU layout (``mig.layout: [{gpus, mix} | {gpus, whole: true}, ...]``): each mix by the one layout
    rule, the entries summing to the size's GPUs, at least one GPU cut. One entry covering every GPU is the
    uniform mix it names (NVIDIA's layout name when it is one)."""
    assert pool.mig is not None and isinstance(pool.mig.layout, list)
    entries = pool.mig.layout
    problems = [
        Problem(path("mig", "layout", index, "mix"), f"{message} ({pool.size})")
        for index, entry in enumerate(entries)
        if entry.mix is not None
        for message in layout_fit_problems(gpu, entry.mix)
    ]
    given = sum(entry.gpus for entry in entries)
    if given != gpus:
        problems.append(
            Problem(
                path("mig", "layout"),
                f"the entries' gpus add up to {given}, but a {pool.size} node has {gpus} GPUs; "
                f"allowed: entries whose gpus add up to {gpus}",
            )
        )
    elif all(entry.mix is None for entry in entries):
        problems.append(
            Problem(path("mig", "layout"), "every GPU is left whole; allowed: at least one entry with a mix, or no mig")
        )
    node = NodeLayout(tuple(GpuGroup(entry.gpus, canonical(entry.mix) if entry.mix else None) for entry in entries))
    if problems or not node.is_uniform:
        too_long = None if problems else _custom_name_problem(pool, path)
        return node, _custom_name(pool), True, problems + ([too_long] if too_long else [])
    named = next((name for name, devices in gpu.layouts.items() if canonical(devices) == node.groups[0].layout), None)
    return node, named or _custom_name(pool), named is None, []


def _custom_name(pool: GpuPoolConfig) -> str:
    """The ``nvidia.com/mig.config`` value of a layout NVIDIA does not name."""
    return f"gpupools-{pool.name}"


def _custom_name_problem(pool: GpuPoolConfig, path: Callable[..., str]) -> Problem | None:
    name = _custom_name(pool)
    if len(name) <= 63:
        return None
    return Problem(
        path("mig", "layout"),
        f"a custom layout is named '{name}' on the node label nvidia.com/mig.config, longer than Kubernetes' 63 "
        "characters; use a pool name of at most 54 characters",
    )


def size_mig_problem(size: str, gpu: GpuModel | None) -> str | None:
    """Why a size cannot be cut into MIG devices (its GPU, or None when the catalog does not know the size): the
    config's ``mig`` and ``AksGpuPool``'s ``gpu_instance_profile``."""
    if gpu is not None and gpu.mig_capable:
        return None
    has = (
        f"has {gpu.name} GPUs, which do not support MIG"
        if gpu
        else "is not in the catalog, so its MIG support is unknown"
    )
    return f"{size[:80]} {has}; allowed: a size with A100, A30, H100, H200 or B200 GPUs"


def mig_config_label_problem(size: str, labels: object) -> str | None:
    """Why node ``labels`` given to a pool component (``EksGpuNodeGroup``, ``AksGpuPool``) set a
    ``nvidia.com/mig.config`` the size's GPU has no layout for: the same rule ``plan_mig`` applies to a stack's
    pools (NVIDIA's layout names for that GPU, or a ``gpupools-<pool>`` custom layout), plus ``all-disabled``."""
    value = labels.get(MIG_CONFIG_LABEL) if isinstance(labels, Mapping) else None
    known = INSTANCE_SIZES.get(size)
    if not isinstance(value, str) or known is None or value == "all-disabled" or value.startswith("gpupools-"):
        return None  # an output is checked by the cloud; a size the catalog lacks is refused by its own rule
    gpu = known.gpu
    if not gpu.mig_capable:
        return f"'{value[:80]}': {size} has {gpu.name} GPUs, which do not support MIG; allowed: all-disabled"
    if value in gpu.layouts:
        return None
    return (
        f"'{value[:80]}' is not an NVIDIA layout for {gpu.name} ({size}); {did_you_mean(value, gpu.layouts)}"
        f"allowed: {', '.join(gpu.layouts)}"
    )


def _mig_devices(pool: GpuPoolConfig, gpu: GpuModel, path) -> tuple[dict[str, int], str, bool, list[Problem]]:
    """Per-GPU MIG devices from a profile or layout, with the layout name the MIG manager label uses."""
    assert pool.mig is not None
    allowed_profiles = ", ".join(p.name for p in gpu.profiles)
    if pool.mig.profile is not None:
        name = pool.mig.profile
        match = AKS_PROFILE.fullmatch(name)
        profile = aks_profile(gpu, name) if match else gpu.profile(name)
        if profile is None:
            allowed = f"{'/'.join(_aks_names(gpu))} or {allowed_profiles}"
            allowed = did_you_mean(name, [*_aks_names(gpu), *(p.name for p in gpu.profiles)]) + f"allowed: {allowed}"
            return (
                {},
                "",
                False,
                [
                    Problem(
                        path("mig", "profile"),
                        f"'{name}' is not a MIG profile of {gpu.name} ({pool.size}); {allowed}",
                    )
                ],
            )
        return {profile.name: profile.max_instances}, f"all-{profile.layout_token}", False, []
    layout = pool.mig.layout
    if isinstance(layout, str):
        named = gpu.layouts
        if layout not in named:
            return (
                {},
                "",
                False,
                [
                    Problem(
                        path("mig", "layout"),
                        f"'{layout}' is not an NVIDIA layout for {gpu.name} ({pool.size}); "
                        f"{did_you_mean(layout, named)}allowed: {', '.join(named)}",
                    )
                ],
            )
        return dict(named[layout]), layout, False, []
    assert isinstance(layout, dict)
    problems = layout_fit_problems(gpu, layout)
    if problems:
        return {}, "", True, [Problem(path("mig", "layout"), f"{message} ({pool.size})") for message in problems]
    # A custom mix equal to an NVIDIA layout uses NVIDIA's name, so no ConfigMap is needed.
    for name, devices in gpu.layouts.items():
        if devices == layout:
            return dict(layout), name, False, []
    too_long = _custom_name_problem(pool, path)
    return ({}, "", True, [too_long]) if too_long else (dict(layout), _custom_name(pool), True, [])


def layout_fit_problems(gpu: GpuModel, layout: Mapping[str, int]) -> list[str]:
    """Why a per-GPU mix of MIG profiles cannot be created on one GPU (NVIDIA's placements, ``domain.mig_layouts``);
    empty when it fits."""
    return list(check_layout(gpu, layout).problems)


def layout_notes(gpu: GpuModel, layout: Mapping[str, int]) -> list[str]:
    """What a valid layout needs beyond fitting: a driver branch (4g + 3g on an A100), or a caveat on the table."""
    return list(check_layout(gpu, layout).notes)


def _describe(node: NodeLayout) -> str:
    """A uniform node as its per-GPU mix (``{1g.5gb: 7}``), any other as its groups (``6x {...} + 2x whole``)."""
    return describe(node.per_gpu) if node.is_uniform else node.describe()


def _aks_names(gpu: GpuModel) -> list[str]:
    return aks_names(gpu)


def _aks_profile_for(gpu: GpuModel, node: NodeLayout) -> str | None:
    """The AKS ``MIG<n>g`` value that creates exactly this node, if one does (one profile filling every GPU)."""
    if not node.is_uniform or len(node.per_gpu) != 1:
        return None
    ((name, count),) = node.per_gpu.items()
    profile = gpu.profile(name)
    if profile is None:  # not this GPU's profile: no AKS value creates it
        return None
    aks_name = aks_name_of(gpu, profile)
    return aks_name if aks_name is not None and count == profile.max_instances else None


def strategy_problems(
    config: StackConfig, pool: GpuPoolConfig, mig: MigPlan | None, path: Callable[..., str]
) -> list[Problem]:
    strategy = config.gpu_software.mig_strategy
    if mig is None or not config.gpu_software.chosen_installer.follows_mig_strategy:  # e.g. DRA publishes every device
        return []
    if strategy == "none":
        return [
            Problem(
                field_path("gpuSoftware", "migStrategy"),
                f"'none' advertises whole GPUs, but pool {pool.name} is cut into MIG devices; allowed: single, mixed",
            )
        ]
    if strategy == "single" and mig.node.needs_mixed:
        reasons = ["mixes profiles"] if len(mig.profiles) > 1 else []
        reasons += ["leaves GPUs whole beside MIG devices"] if mig.node.whole_gpus else []
        what = " and ".join(reasons)
        return [
            Problem(
                path("mig", "layout"),
                f"{_describe(mig.node)} {what}, which migStrategy 'single' cannot advertise; "
                "use one profile or gpuSoftware.migStrategy mixed",
            )
        ]
    return []


def node_notes(gpu: GpuModel, node: NodeLayout) -> list[str]:
    """``layout_notes`` of each distinct mix of a node, once each."""
    notes = [note for group in node.groups if group.layout for note in layout_notes(gpu, group.devices)]
    return list(dict.fromkeys(notes))
