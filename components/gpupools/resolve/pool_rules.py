"""One pool of the stack config resolved into a ``ResolvedPool``: its size, MIG plan, labels and taints, or the
reasons it cannot be.

The rules every cloud shares are here; each cloud adds its own (its ``CloudRules``, from ``azure_rules`` and
``aws_rules``), ``mig_rules`` decides the MIG plan, and ``autoscaling_rules`` checks the node-template tags.
"""

from __future__ import annotations


from typing import Mapping

from ..catalog.gpus import GpuModel
from ..catalog.instances import InstanceSize, resolve_size, sizes_for
from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.cloud_registry import clouds
from ..catalog.labels import (
    DEFAULT_DEVICE_PLUGIN_CONFIG,
    DEVICE_PLUGIN_CONFIG_LABEL,
    GPU_PRESENT_LABEL,
    MIG_CONFIG_LABEL,
    MIG_MANAGER_DEPLOY_LABEL,
    MPS_CAPABLE_LABEL,
    POOL_LABEL,
)
from ..catalog.names import reserved_label_domain
from ..catalog.provisioners import provisioner_named
from ..config.errors import Findings, Problem, field_path
from ..config.models import GpuPoolConfig, StackConfig
from ..domain.pools import MigPlan, ResolvedPool
from .cloud_rules import rules
from .mig_rules import node_notes, plan_mig, strategy_problems
from ..untrusted.lookup import did_you_mean
from . import provisioner_rules


def resolve_pool(
    config: StackConfig, index: int, pool: GpuPoolConfig, custom: Mapping[str, InstanceSize]
) -> tuple[ResolvedPool | None, Findings]:
    """The pool resolved, or None with the problems that stop it; warnings either way."""
    found = Findings()
    size = resolve_size(pool.size, custom)
    path = lambda *parts: field_path("gpuPools", index, *parts)  # noqa: E731
    if size is None:
        known = sizes_for(config.cloud)
        hint = did_you_mean(pool.size, known, cutoff=0.8)
        return None, Findings(
            [
                Problem(
                    path("size"),
                    f"unknown {config.cloud} GPU size '{pool.size}'; {hint}known: {', '.join(known)}; "
                    "or declare it under gpupools:customSizes with its gpu and gpus",
                )
            ]
        )
    if size.cloud != config.cloud:
        return None, Findings(
            [Problem(path("size"), f"'{pool.size}' is an {size.cloud} size but cloud is {config.cloud}")]
        )
    found.problems += _cloud_scope_problems(config.cloud, pool, path)
    found.problems += provisioner_rules.pool_problems(config, pool, path)
    found += rules(config.cloud).pool_problems(config, pool, size, path)
    mig: MigPlan | None = None
    if pool.mig is not None:
        mig, mig_problems = plan_mig(config, pool, size.gpu, path, size.gpus)
        found.problems += mig_problems
        if mig is not None:  # 4g + 3g on an A100 needs driver R510+; unsourced placements were checked by counts
            found.warnings += [
                f"pool {pool.name}: MIG {mig.layout_name}: {note}" for note in node_notes(size.gpu, mig.node)
            ]
    found.problems += strategy_problems(config, pool, mig, path)
    found.problems += _sharing_problems(pool, mig, path, config.gpu_software.chosen_installer.uses_dra)
    found.problems += _label_problems(pool, path)
    if pool.autoscaling and not (pool.autoscaling.min_count <= pool.count <= pool.autoscaling.max_count):
        found.problems.append(
            Problem(
                path("count"),
                f"{pool.count} is outside autoscaling bounds "
                f"{pool.autoscaling.min_count}..{pool.autoscaling.max_count}",
            )
        )
    if pool.count == 0:
        found.warnings.append(f"pool {pool.name}: count is 0, it advertises no GPU resources until scaled up")
    if found.problems:
        return None, found
    dp_config = pool.name if pool.sharing is not None else None
    cloud_taints = cloud_named(config.cloud).spot_taints if pool.priority == "Spot" else ()
    cluster_subnets = tuple(config.cluster.subnet_ids) if config.cluster is not None else ()
    resolved = ResolvedPool(
        pool.name,
        config.cloud,
        size,
        pool,
        config.gpu_software.mig_strategy,
        mig,
        dp_config,
        _labels(config, pool, size.gpu, mig, dp_config),
        cloud_taints=cloud_taints,
        max_pods=pool.max_pods,
        # A provisioner that replaces nodes itself (Karpenter's drift) has no generations: its pool keeps one name.
        rotation=pool.resolved_rotation if provisioner_named(pool.provisioner).fixed_node_count else "recreate",
        gpu_driver=config.gpu_software.driver,
        cluster_subnet_ids=cluster_subnets,
        dra=config.gpu_software.chosen_installer.uses_dra,
    )
    found += _autoscaling_findings(config, resolved, path)
    if found.problems:
        return None, found
    found.warnings += provisioner_rules.pool_warnings(config, resolved)
    if mig and mig.applied_by == "aks" and config.gpu_software.chosen_installer.deploys_mig_manager:
        found.warnings.append(
            f"pool {pool.name}: AKS sets MIG profile {mig.aks_profile} at creation; the GPU "
            f"Operator's MIG manager is kept off these nodes ({MIG_MANAGER_DEPLOY_LABEL}=false) so "
            "it never undoes it"
        )
    # The DRA driver runs no MPS DaemonSet: it starts one control daemon Deployment per claim (guides-mps.md).
    if pool.sharing is not None and pool.sharing.mps is not None and not config.gpu_software.chosen_installer.uses_dra:
        found.warnings.append(
            f"pool {pool.name}: MPS: its control daemon runs privileged and in the host's PID "
            "namespace (hostPID; no hostIPC) on every node of the pool (allowPrivilegedHostPID)"
        )
    return resolved, found


def _autoscaling_findings(config: StackConfig, pool: ResolvedPool, path) -> Findings:
    """An autoscaled pool's node-template tags must fit its cloud's tag limits; then the cloud's own rules."""
    if pool.config.autoscaling is None:
        return Findings()
    cluster_name = config.cluster.name if config.cluster is not None else ""  # None: malformed, reported already
    problems = [
        Problem(path("autoscaling"), message)
        for message in rules(config.cloud).template_tag_problems(pool, cluster_name, config.tags or {})
    ]
    found = Findings(problems)
    found += rules(config.cloud).autoscaling_findings(config, pool, path)
    return found


def _cloud_scope_problems(cloud: str, pool: GpuPoolConfig, path) -> list[Problem]:
    """Keys of the other cloud are refused, not silently ignored."""
    given = {GpuPoolConfig.model_fields[name].alias or name for name in pool.model_fields_set}
    problems = []
    this = cloud_named(cloud)
    for other in clouds():
        if other is this:
            continue
        for key in other.pool_keys:
            if key in given:
                problems.append(Problem(path(key), f"is for {other.name} pools; cloud is {cloud}"))
    return problems


def _sharing_problems(pool: GpuPoolConfig, mig: MigPlan | None, path, dra: bool = False) -> list[Problem]:
    if pool.sharing and pool.name == DEFAULT_DEVICE_PLUGIN_CONFIG:
        return [
            Problem(
                path("name"),
                f"a pool with sharing cannot be named '{pool.name}': its device plugin config "
                "would replace the default config every other node uses",
            )
        ]
    mps = pool.sharing.mps if pool.sharing else None
    if mps is None:
        return []
    problems = []
    # The DRA driver shares a MIG device through MPS (MigDeviceConfig, guides-mps.md); the device plugin cannot.
    if pool.mig is not None and not dra:
        problems.append(
            Problem(
                path("sharing", "mps"),
                "MPS shares full GPUs only and cannot be used with mig; remove mig or use timeSlicing",
            )
        )
    if not mps.allow_privileged_host_pid:
        problems.append(
            Problem(
                path("sharing", "mps", "allowPrivilegedHostPID"),
                "must be true to use MPS: its control daemon runs privileged, in the host's PID "
                "namespace (hostPID), on every node of the pool; set allowPrivilegedHostPID: true to "
                "accept that",
            )
        )
    return problems


def _label_problems(pool: GpuPoolConfig, path) -> list[Problem]:
    return [Problem(path("labels", key), why) for key in pool.labels for why in [reserved_label_problem(key)] if why]


def reserved_label_problem(key: str, ours: frozenset[str] = frozenset()) -> str | None:
    """A label key under a reserved domain, unless it is one of ``ours`` (the labels gpupools itself puts on a pool's
    nodes, which the components take from ``GpuPlatform``); the config's ``labels`` and the components' labels."""
    domain = reserved_label_domain(key)
    if domain is None or key in ours:
        return None
    return (
        f"'{key[:80]}' is under {domain}/, a prefix reserved for Kubernetes, the cloud or gpupools; use your own, "
        "e.g. example.com/"
    )


def duplicate_taint_problems(taints: list[tuple[str, str, str]]) -> list[str]:
    """Kubernetes keeps one taint per key and effect ("taints must be unique by key and effect pair")."""
    seen: set[tuple[str, str]] = set()
    problems = []
    for key, _value, effect in taints:
        if (key, effect) in seen:
            line = f"{key[:80]!r} with effect {effect} is given more than once; allowed: one taint per key and effect"
            if line not in problems:
                problems.append(line)
        seen.add((key, effect))
    return problems


def _labels(
    config: StackConfig, pool: GpuPoolConfig, gpu: GpuModel, mig: MigPlan | None, dp_config: str | None
) -> dict[str, str]:
    """Node labels: who the pool is, that it has GPUs (device plugin affinity without NFD), and MIG/sharing
    selectors."""
    labels = {**pool.labels, POOL_LABEL: pool.name, GPU_PRESENT_LABEL: "true"}
    if mig and mig.applied_by == "operator":
        labels[MIG_CONFIG_LABEL] = mig.layout_name
    if config.gpu_software.manages_mig_layouts and gpu.mig_capable:
        # The operator deploys its MIG manager where GFD reports MIG; saying so here keeps that true with gfd
        # off. Where AKS applied the profile, the MIG manager must stay away or it would reset it.
        labels[MIG_MANAGER_DEPLOY_LABEL] = "false" if mig and mig.applied_by == "aks" else "true"
    if dp_config:
        labels[DEVICE_PLUGIN_CONFIG_LABEL] = dp_config
    if pool.sharing and pool.sharing.mps:
        labels[MPS_CAPABLE_LABEL] = "true"
    return labels
