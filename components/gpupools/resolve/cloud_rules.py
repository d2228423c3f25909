"""``CloudRules``: the resolve layer's facet of a cloud, the rules only that cloud has.

Each cloud's rules module (``aws_rules``, ``azure_rules``) attaches one to its ``Cloud`` when ``gpupools.resolve``
is imported; the shared rules (``pool_rules``, ``stack_loader``) ask ``rules(cloud)`` instead of naming a cloud.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..catalog.cloud_registry import cloud as cloud_named
from ..config.errors import Findings, Problem
from ..config.models import GpuPoolConfig, StackConfig
from ..domain.pools import ResolvedPool


def no_problems(*args: Any) -> list[Any]:
    return []


def no_findings(*args: Any) -> Findings:
    return Findings()


@dataclass(frozen=True)
class CloudRules:
    """A cloud's own rules; ``path`` arguments build a field path under the pool (``gpuPools[i].<key>``)."""

    capability: ClassVar[str] = "stack rules"
    cluster_problems: Callable[[StackConfig], list[Problem]]
    pool_name_problem: Callable[[int, str], Problem | None]
    pool_problems: Callable[..., Findings]  # (config, pool config, size, path)
    autoscaling_findings: Callable[..., Findings]  # (config, resolved pool, path)
    # The node-template tags of an autoscaled pool against the cloud's tag limits: (pool, cluster, stack tags).
    template_tag_problems: Callable[[ResolvedPool, str, Mapping[str, str]], list[str]]
    # Rules across the well-formed pools (index -> pool config) of a stack with a cluster.
    stack_findings: Callable[[StackConfig, dict[int, GpuPoolConfig]], Findings] = no_findings
    software_problems: Callable[[StackConfig], list[Problem]] = no_problems


def rules(name: str) -> CloudRules:
    """The rules of the cloud called ``name``; ``CloudNotSupported`` when it has none."""
    return cloud_named(name).facet(CloudRules)
