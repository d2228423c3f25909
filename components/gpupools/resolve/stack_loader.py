"""``load_stack``: the one place that sequences the rules, the placement check and sizing into a ``Stack``.

Raw ``gpupools:*`` config in, a ``Stack`` out, or a ``ConfigError`` listing every problem at once: shape
errors from pydantic, then the catalog rules (per pool in ``pools``; one cloud's own in ``azure_rules`` and
``aws_rules``; MIG in ``mig_rules``), then the daemonset placement check, which also sizes each AKS pool's
``maxPods`` (``daemonsets``), then the surge pools' cloud names. ``check``, ``plan``, the stack program and
every component that takes a whole stack call this, so they refuse the same configs.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Mapping

import pydantic

from .autoscaler_version_rule import cluster_autoscaler_problems
from .versions import kubernetes_window_findings
from ..catalog.clock import PlanDate, plan_date
from ..catalog.gpus import GPU_MODELS
from ..catalog.instances import INSTANCE_SIZES, InstanceSize, cloud_of_size_name
from ..catalog.cloud_syntax import size_name_problem, tag_problems
from ..config.errors import ConfigError, Findings, Problem, field_path
from ..config.models import GpuPoolConfig, StackConfig
from ..config.partial import well_formed_part
from ..config.shape import shape_problems, strip_namespace
from ..domain.pools import ResolvedPool
from ..domain.rotation import name_clashes, surge_warnings
from ..domain.stack import Stack
from ..charts.values import addon_chart_values
from . import dra_rules, place_rules, provisioner_rules
from .cloud_rules import rules
from .daemonsets import place_daemonsets
from .handed_down import exact_key, hand_down, handed_down
from .pool_rules import resolve_pool
from . import installer_rules


def load_stack(raw: Mapping[str, Any], on: PlanDate | None = None) -> Stack:
    """Validate raw ``gpupools:`` config (keys with or without the namespace) and resolve it.

    Shape errors do not hide rule errors: the sections that are well formed still go through the
    catalog rules, so one run reports every problem. A stack that passes every rule then goes through
    the daemonset placement check, which also sizes each AKS pool's ``maxPods``. Dated facts are compared with
    ``on`` (the clock's ``plan_date()`` when not given): the one reading of the clock for the rules.
    """
    values, problems = strip_namespace(raw)
    reused = None if problems else handed_down(exact_key(values))
    if reused is not None:  # the very config validated_once validated: the same answer
        return reused
    on = on or plan_date()
    try:
        config = StackConfig.model_validate(values, context={"day": on.day})
    except pydantic.ValidationError as error:
        problems += shape_problems(error)
        partial = well_formed_part(values)
        if partial is not None:  # the rules on what is well formed, less what a stand-in default could cause
            found = _apply_rules(partial.config, on.day)[1]
            problems += [problem for problem in found.problems if partial.keeps(problem)]
            refused = {problem.field for problem in problems}
            problems += place_rules.provider_region_problems(raw, partial.config, refused)
        raise ConfigError(problems) from None
    pools, found = _apply_rules(config, on.day)
    problems += place_rules.provider_region_problems(raw, config, {problem.field for problem in found.problems})
    Findings(problems + found.problems).raise_problems()
    draft = Stack(config, pools)
    placement = place_daemonsets(draft)
    placement.findings.problems += dra_rules.publisher_problems(draft, placement.rows, addon_chart_values(draft))
    placement.findings.raise_problems()
    # The one step after the rules: each pool completed with what landing NVIDIA's daemonsets on it decided.
    sized = [dataclasses.replace(pool, **dataclasses.asdict(placement.sizing[pool.name])) for pool in pools]
    _name_problems_of_generations(config, sized).raise_problems()
    # once each: 1,000 repeated draAlphaGates are one warning, not 1,000 (the order they were found in is kept)
    warnings = list(dict.fromkeys(found.warnings + placement.findings.warnings + surge_warnings(sized)))
    return Stack(config, sized, warnings, placement.rows, on)


@contextmanager
def validated_once(raw: Mapping[str, Any]) -> Iterator[Stack]:
    """``load_stack(raw)``; inside the block, ``load_stack`` of an equal config returns that same ``Stack``.

    For ``plan``: the stack program it runs validates the plan's config again (``handed_down``).
    """
    stack = load_stack(raw)
    values, problems = strip_namespace(raw)
    with hand_down(None if problems else exact_key(values), stack):
        yield stack


def _apply_rules(config: StackConfig, day: date) -> tuple[list[ResolvedPool], Findings]:
    found = Findings()
    found.problems += _software_problems(config)
    found.warnings += _owner_software_warnings(config)
    # One error per problem: a name missing from the cloud's list of regions is refused there, with did-you-mean,
    # not a second time by the cloud's syntax rule for the same field.
    region = place_rules.region_problems(config)
    listed = {problem.field for problem in region}
    found.problems += [problem for problem in _cluster_problems(config) if problem.field not in listed]
    found += kubernetes_window_findings(config, day)
    found.problems += region
    found += place_rules.offer_findings(config, day)
    found += installer_rules.config_findings(config)
    found.problems += [
        Problem(field_path("tags", key) if key is not None else field_path("tags"), message)
        for key, message in tag_problems(config.cloud, dict(config.tags or {}))
    ]
    custom, custom_problems = _custom_sizes(config)
    found.problems += custom_problems
    pools: list[ResolvedPool] = []
    well_formed: dict[int, GpuPoolConfig] = {}
    seen: dict[str, int] = {}
    for index, pool in enumerate(config.gpu_pools):
        if pool is None:  # malformed, already reported by its shape errors
            continue
        well_formed[index] = pool
        found.problems += _name_problems(config.cloud, index, pool.name, seen)
        resolved, pool_found = resolve_pool(config, index, pool, custom)
        found += pool_found
        if resolved is not None:
            pools.append(resolved)
    if config.cluster is not None:
        found += rules(config.cloud).stack_findings(config, well_formed)
    return pools, found


def _name_problems_of_generations(config: StackConfig, pools: list[ResolvedPool]) -> Findings:
    """Each surge pool's cloud name (its generation hashes its fields as finally sized) must be free."""
    index = {pool.name: i for i, pool in enumerate(config.gpu_pools) if pool is not None}
    clashes = name_clashes(config.cloud, [(index[p.name], p.name, p.cloud_pool_name) for p in pools])
    return Findings([Problem(field_path("gpuPools", i, "name"), why) for i, why in clashes])


def _owner_software_warnings(config: StackConfig) -> list[str]:
    """What a stack that installs no chart takes on trust: the owner's release matches its gpuSoftware."""
    software = config.gpu_software
    if software.install:
        return []
    return [
        f"gpuSoftware.install is false: this stack installs no chart; its capacity and placement check assume the "
        f"cluster's owner runs {software.installer} {software.resolved_version} in namespace "
        f"{software.resolved_namespace} with migStrategy {software.mig_strategy} and these values, which cannot be "
        "read offline (gpupools verify checks the nodes once they join)"
    ]


def _software_problems(config: StackConfig) -> list[Problem]:
    software = config.gpu_software
    problems = []
    if not software.install and config.cluster is not None and config.cluster.create:
        problems.append(
            Problem(
                field_path("gpuSoftware", "install"),
                "false is for an existing cluster whose owner runs the NVIDIA software (create: false); a "
                "cluster gpupools creates has no one else to install it",
            )
        )
    version, chart = software.resolved_version, software.chosen_installer.chart
    if not chart.is_pinned(version):
        problems.append(
            Problem(
                field_path("gpuSoftware", "version"),
                f"'{version}' is not a pinned {software.installer} chart version; "
                f"allowed: an exact version such as '{chart.default_version}'",
            )
        )
    if software.driver == "operator" and not software.chosen_installer.installs_driver:
        problems.append(
            Problem(
                field_path("gpuSoftware", "driver"),
                "'operator' needs installer 'gpu-operator' or 'dra-driver' (which installs the GPU Operator beside "
                "it); the device plugin does not install drivers (allowed: preinstalled)",
            )
        )
    else:
        problems += rules(config.cloud).software_problems(config)
    return problems


def _cluster_problems(config: StackConfig) -> list[Problem]:
    cluster, problems = config.cluster, []
    if cluster is None:  # malformed, already reported by its shape errors
        return problems
    problems += rules(config.cloud).cluster_problems(config)
    problems += cluster_autoscaler_problems(config)
    problems += provisioner_rules.cluster_problems(config)
    if cluster.create and cluster.system_pool is None:
        problems.append(Problem(field_path("cluster", "systemPool"), "is required when create is true"))
    system_size = cluster.system_pool.size if cluster.system_pool else None
    spelled = size_name_problem(config.cloud, system_size) if system_size else None
    if spelled and system_size and cloud_of_size_name(system_size) == config.cloud:
        problems.append(Problem(field_path("cluster", "systemPool", "size"), spelled))
    if cluster.system_pool and cloud_of_size_name(cluster.system_pool.size) != config.cloud:
        problems.append(
            Problem(
                field_path("cluster", "systemPool", "size"),
                f"'{cluster.system_pool.size}' is an {cloud_of_size_name(cluster.system_pool.size)} size but cloud is "
                f"{config.cloud}",
            )
        )
    return problems


def _custom_sizes(config: StackConfig) -> tuple[dict[str, InstanceSize], list[Problem]]:
    sizes, problems = {}, []
    for name, custom in config.custom_sizes.items():
        if name in INSTANCE_SIZES:
            known = INSTANCE_SIZES[name]
            problems.append(
                Problem(
                    field_path("customSizes", name),
                    f"'{name}' is in the catalog ({known.gpus}x {known.gpu.name}); customSizes is for "
                    "sizes missing from it: remove this entry",
                )
            )
            continue
        spelled = size_name_problem(cloud_of_size_name(name), name)
        if spelled:
            problems.append(Problem(field_path("customSizes", name), spelled))
            continue
        gpu = GPU_MODELS.get(custom.gpu)
        if gpu is None:
            problems.append(
                Problem(
                    field_path("customSizes", name, "gpu"),
                    f"unknown GPU model '{custom.gpu}'; allowed: {', '.join(sorted(GPU_MODELS))}",
                )
            )
            continue
        sizes[name] = InstanceSize(name, cloud_of_size_name(name), gpu, custom.gpus)
    return sizes, problems


def _name_problems(cloud: str, index: int, name: str, seen: dict[str, int]) -> list[Problem]:
    problems = []
    problem = rules(cloud).pool_name_problem(index, name)
    if problem is not None:
        problems.append(problem)
    if name in seen:
        problems.append(
            Problem(
                field_path("gpuPools", index, "name"),
                f"'{name}' is already the name of gpuPools[{seen[name]}]; pool names must be unique",
            )
        )
    else:
        seen[name] = index
    return problems
