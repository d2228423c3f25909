"""Validation that needs the GPU catalog, and the resolution of each pool into a ``ResolvedPool``.

``load_stack`` is the single entry point: raw ``gpupools:*`` config in, a ``Stack`` out, or a
``ConfigError`` listing every problem at once (shape errors from pydantic, then the rules below, then the
daemonset placement check). Rules one cloud imposes live in ``azure_rules`` and ``aws_rules``, the MIG rules in
``mig_rules``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import pydantic

from ..catalog import GPU_MODELS, INSTANCE_SIZES, GpuModel, InstanceSize, cloud_of_size_name, resolve_size, sizes_for
from ..pools import (
    AKS_SPOT_TAINT, DEFAULT_DEVICE_PLUGIN_CONFIG, DEVICE_PLUGIN_CONFIG_LABEL,
    GPU_PRESENT_LABEL, MIG_CONFIG_LABEL, MIG_MANAGER_DEPLOY_LABEL, MPS_CAPABLE_LABEL, POOL_LABEL, MigPlan, ResolvedPool,
)
from .. import autoscaling, rotation
from ..scheduling import Placement
from . import aws_rules, azure_rules
from .daemonsets import place_daemonsets
from .errors import ConfigError, Problem, field_path
from .mig_rules import plan_mig, strategy_problems
from .models import DEFAULT_VERSIONS, PINNED_VERSION, GpuPoolConfig, StackConfig
from .names import reserved_label_domain, tag_problems
from .shape import shape_problems, strip_namespace, well_formed_part

CLOUD_RULES = {"azure": azure_rules, "aws": aws_rules}
# Pool keys that only one cloud understands; the other cloud refuses them instead of ignoring them.
CLOUD_POOL_KEYS = {
    "azure": ("osSku", "maxPods", "availabilityZones", "capacityReservationGroupId", "priority", "evictionPolicy",
              "spotMaxPrice"),
    "aws": ("amiType", "capacityType", "capacityReservation", "subnetIds", "efa"),
}


@dataclass
class Stack:
    """A validated stack: the config as written, its pools resolved, and advice that is not an error."""

    config: StackConfig
    pools: list[ResolvedPool]
    warnings: list[str] = field(default_factory=list)
    # Where each NVIDIA daemonset lands on each pool, as the placement check found it (for the plan to show).
    placements: list[Placement] = field(default_factory=list)

    @property
    def cloud(self) -> str:
        return self.config.cloud


def load_stack(raw: Mapping[str, Any]) -> Stack:
    """Validate raw ``gpupools:`` config (keys with or without the namespace) and resolve it.

    Shape errors do not hide rule errors: the sections that are well formed still go through the
    catalog rules, so one run reports every problem. A stack that passes every rule then goes through
    the daemonset placement check, which also sizes each AKS pool's ``maxPods``.
    """
    values, problems = strip_namespace(raw)
    try:
        config = StackConfig.model_validate(values)
    except pydantic.ValidationError as error:
        problems += shape_problems(error)
        partial = well_formed_part(values)
        if partial is not None:
            problems += _apply_rules(partial)[1]
        raise ConfigError(problems) from None
    stack, rule_problems = _apply_rules(config)
    if problems or rule_problems:
        raise ConfigError(problems + rule_problems)
    pools, warnings, placement_problems, placed = place_daemonsets(stack)
    if placement_problems:
        raise ConfigError(placement_problems)
    pools, name_problems = _name_generations(stack.config, pools)
    if name_problems:
        raise ConfigError(name_problems)
    return Stack(stack.config, pools, stack.warnings + warnings + rotation.surge_warnings(pools), placed)


def _apply_rules(config: StackConfig) -> tuple[Stack, list[Problem]]:
    problems: list[Problem] = []
    warnings: list[str] = []
    problems += _software_problems(config)
    problems += _cluster_problems(config)
    problems += [Problem(field_path("tags", key) if key is not None else field_path("tags"), message)
                 for key, message in tag_problems(config.cloud, dict(config.tags or {}))]
    custom, custom_problems = _custom_sizes(config)
    problems += custom_problems
    pools: list[ResolvedPool] = []
    well_formed: dict[int, GpuPoolConfig] = {}
    seen: dict[str, int] = {}
    for index, pool in enumerate(config.gpu_pools):
        if pool is None:  # malformed, already reported by its shape errors
            continue
        well_formed[index] = pool
        name_problems = _name_problems(config.cloud, index, pool.name, seen)
        resolved, pool_problems = _resolve_pool(config, index, pool, custom, warnings)
        problems += name_problems + pool_problems
        if resolved is not None:
            pools.append(resolved)
    if config.cloud == "azure" and config.cluster is not None:
        problems += azure_rules.stack_problems(config, well_formed)
    return Stack(config, pools, warnings), problems


def _name_generations(config: StackConfig, pools: list[ResolvedPool]) -> tuple[list[ResolvedPool], list[Problem]]:
    """Each surge pool's generation, from its fixed fields as finally sized (maxPods comes from the placement)."""
    subnets = config.cluster.subnet_ids if config.cluster is not None else []
    named = [rotation.with_generation(pool, config.gpu_software.driver, subnets, aws_rules.DEFAULT_AMI_TYPE)
             for pool in pools]
    index = {pool.name: i for i, pool in enumerate(config.gpu_pools) if pool is not None}
    clashes = rotation.name_clashes(config.cloud, [(index[p.name], p.name, p.cloud_pool_name) for p in named])
    return named, [Problem(field_path("gpuPools", i, "name"), why) for i, why in clashes]


def _software_problems(config: StackConfig) -> list[Problem]:
    software = config.gpu_software
    problems = []
    version = software.resolved_version
    if not PINNED_VERSION[software.installer].fullmatch(version):
        problems.append(Problem(
            field_path("gpuSoftware", "version"),
            f"'{version}' is not a pinned {software.installer} chart version; "
            f"allowed: an exact version such as '{DEFAULT_VERSIONS[software.installer]}'",
        ))
    if software.driver == "operator" and software.installer != "gpu-operator":
        problems.append(Problem(
            field_path("gpuSoftware", "driver"),
            "'operator' needs installer 'gpu-operator'; the device plugin does not install drivers (allowed: preinstalled)",
        ))
    elif config.cloud == "aws":
        problems += aws_rules.software_problems(config)
    return problems


def _cluster_problems(config: StackConfig) -> list[Problem]:
    cluster, problems = config.cluster, []
    if cluster is None:  # malformed, already reported by its shape errors
        return problems
    problems += CLOUD_RULES[config.cloud].cluster_problems(config)
    if cluster.create and cluster.system_pool is None:
        problems.append(Problem(field_path("cluster", "systemPool"), "is required when create is true"))
    if cluster.system_pool and cloud_of_size_name(cluster.system_pool.size) != config.cloud:
        problems.append(Problem(
            field_path("cluster", "systemPool", "size"),
            f"'{cluster.system_pool.size}' is an {cloud_of_size_name(cluster.system_pool.size)} size but cloud is {config.cloud}",
        ))
    return problems


def _custom_sizes(config: StackConfig) -> tuple[dict[str, InstanceSize], list[Problem]]:
    sizes, problems = {}, []
    for name, custom in config.custom_sizes.items():
        if name in INSTANCE_SIZES:
            known = INSTANCE_SIZES[name]
            problems.append(Problem(field_path("customSizes", name),
                                    f"'{name}' is in the catalog ({known.gpus}x {known.gpu.name}); customSizes is for "
                                    "sizes missing from it: remove this entry"))
            continue
        gpu = GPU_MODELS.get(custom.gpu)
        if gpu is None:
            problems.append(Problem(
                field_path("customSizes", name, "gpu"),
                f"unknown GPU model '{custom.gpu}'; allowed: {', '.join(sorted(GPU_MODELS))}",
            ))
            continue
        sizes[name] = InstanceSize(name, cloud_of_size_name(name), gpu, custom.gpus)
    return sizes, problems


def _name_problems(cloud: str, index: int, name: str, seen: dict[str, int]) -> list[Problem]:
    problems = []
    problem = CLOUD_RULES[cloud].pool_name_problem(index, name)
    if problem is not None:
        problems.append(problem)
    if name in seen:
        problems.append(Problem(field_path("gpuPools", index, "name"),
                                f"'{name}' is already the name of gpuPools[{seen[name]}]; pool names must be unique"))
    else:
        seen[name] = index
    return problems


def _resolve_pool(
    config: StackConfig, index: int, pool: GpuPoolConfig, custom: Mapping[str, InstanceSize], warnings: list[str]
) -> tuple[ResolvedPool | None, list[Problem]]:
    problems: list[Problem] = []
    size = resolve_size(pool.size, custom)
    path = lambda *parts: field_path("gpuPools", index, *parts)  # noqa: E731
    if size is None:
        known = ", ".join(sizes_for(config.cloud))
        return None, [Problem(path("size"), f"unknown {config.cloud} GPU size '{pool.size}'; known: {known}; "
                                            "or declare it under gpupools:customSizes with its gpu and gpus")]
    if size.cloud != config.cloud:
        return None, [Problem(path("size"), f"'{pool.size}' is an {size.cloud} size but cloud is {config.cloud}")]
    problems += _cloud_scope_problems(config.cloud, pool, path)
    if config.cloud == "azure":
        problems += azure_rules.pool_problems(config, pool, size, path)
    else:
        problems += aws_rules.pool_problems(config, pool, size, path, warnings)
    mig: MigPlan | None = None
    if pool.mig is not None:
        mig, mig_problems = plan_mig(config, pool, size.gpu, path)
        problems += mig_problems
    problems += strategy_problems(config, pool, mig, path)
    problems += _sharing_problems(pool, mig, path)
    problems += _label_problems(pool, path)
    if pool.autoscaling and not (pool.autoscaling.min_count <= pool.count <= pool.autoscaling.max_count):
        problems.append(Problem(path("count"), f"{pool.count} is outside autoscaling bounds "
                                               f"{pool.autoscaling.min_count}..{pool.autoscaling.max_count}"))
    if pool.count == 0:
        warnings.append(f"pool {pool.name}: count is 0, it advertises no GPU resources until scaled up")
    if problems:
        return None, problems
    dp_config = pool.name if pool.sharing is not None else None
    cloud_taints = (AKS_SPOT_TAINT,) if config.cloud == "azure" and pool.priority == "Spot" else ()
    resolved = ResolvedPool(pool.name, config.cloud, size, pool, mig, dp_config,
                            _labels(config, pool, size.gpu, mig, dp_config), cloud_taints=cloud_taints,
                            max_pods=pool.max_pods, rotation=pool.resolved_rotation)
    autoscaling_problems = _autoscaling_problems(config, resolved, path, warnings)
    if autoscaling_problems:
        return None, autoscaling_problems
    if mig and mig.applied_by == "aks" and config.gpu_software.installer == "gpu-operator":
        warnings.append(f"pool {pool.name}: AKS sets MIG profile {mig.aks_profile} at creation; the GPU Operator's MIG "
                        f"manager is kept off these nodes ({MIG_MANAGER_DEPLOY_LABEL}=false) so it never undoes it")
    return resolved, problems


def _autoscaling_problems(config: StackConfig, pool: ResolvedPool, path, warnings: list[str]) -> list[Problem]:
    """An autoscaled pool's node-template tags must fit its cloud's tag limits; then the cloud's own rules."""
    if pool.config.autoscaling is None:
        return []
    cluster_name = config.cluster.name if config.cluster is not None else ""  # None: malformed, reported already
    problems = [Problem(path("autoscaling"), message) for message in autoscaling.template_tag_problems(
        pool, config.gpu_software.mig_strategy, cluster_name, config.tags or {})]
    return problems + CLOUD_RULES[config.cloud].autoscaling_problems(config, pool, path, warnings)


def _cloud_scope_problems(cloud: str, pool: GpuPoolConfig, path) -> list[Problem]:
    """Keys of the other cloud are refused, not silently ignored."""
    given = {GpuPoolConfig.model_fields[name].alias or name for name in pool.model_fields_set}
    problems = []
    for other, keys in CLOUD_POOL_KEYS.items():
        if other == cloud:
            continue
        for key in keys:
            if key in given:
                problems.append(Problem(path(key), f"is for {other} pools; cloud is {cloud}"))
    return problems


def _sharing_problems(pool: GpuPoolConfig, mig: MigPlan | None, path) -> list[Problem]:
    if pool.sharing and pool.name == DEFAULT_DEVICE_PLUGIN_CONFIG:
        return [Problem(path("name"), f"a pool with sharing cannot be named '{pool.name}': its device plugin config "
                                      "would replace the default config every other node uses")]
    mps = pool.sharing.mps if pool.sharing else None
    if mps is None:
        return []
    problems = []
    if pool.mig is not None:
        problems.append(Problem(path("sharing", "mps"), "MPS shares full GPUs only and cannot be used with mig; "
                                                        "remove mig or use timeSlicing"))
    if not mps.allow_privileged_host_ipc:
        problems.append(Problem(path("sharing", "mps", "allowPrivilegedHostIPC"),
                                "must be true to use MPS: its control daemon runs privileged with hostIPC on every node of "
                                "the pool; set allowPrivilegedHostIPC: true to accept that"))
    return problems


def _label_problems(pool: GpuPoolConfig, path) -> list[Problem]:
    problems = []
    for key in pool.labels:
        domain = reserved_label_domain(key)
        if domain is not None:
            problems.append(Problem(path("labels", key), f"'{key}' is under {domain}/, a prefix reserved for "
                                                         "Kubernetes, the cloud or gpupools; use your own, e.g. example.com/"))
    return problems


def _labels(config: StackConfig, pool: GpuPoolConfig, gpu: GpuModel, mig: MigPlan | None,
            dp_config: str | None) -> dict[str, str]:
    """Node labels: who the pool is, that it has GPUs (device plugin affinity without NFD), and MIG/sharing selectors."""
    labels = {**pool.labels, POOL_LABEL: pool.name, GPU_PRESENT_LABEL: "true"}
    if mig and mig.applied_by == "operator":
        labels[MIG_CONFIG_LABEL] = mig.layout_name
    if config.gpu_software.installer == "gpu-operator" and gpu.mig_capable:
        # The operator deploys its MIG manager where GFD reports MIG; saying so here keeps that true with gfd
        # off. Where AKS applied the profile, the MIG manager must stay away or it would reset it.
        labels[MIG_MANAGER_DEPLOY_LABEL] = "false" if mig and mig.applied_by == "aks" else "true"
    if dp_config:
        labels[DEVICE_PLUGIN_CONFIG_LABEL] = dp_config
    if pool.sharing and pool.sharing.mps:
        labels[MPS_CAPABLE_LABEL] = "true"
    return labels
