"""``PlatformBuilder``: the platform layer's facet of a cloud, how ``GpuPlatform`` builds its cluster and pools.

Each cloud's ``<cloud>_builder`` module attaches one when ``gpupools.platform`` is imported, without importing the
cloud's SDK: that loads only when a platform on that cloud is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import pulumi

from ..catalog.cloud_registry import cloud as cloud_named
from ..domain.stack import Stack
from .inputs import Deferred


@dataclass(frozen=True)
class PlatformBuilder:
    capability: ClassVar[str] = "building a GpuPlatform"
    # (stack, deferred, prefix, opts) -> (cluster component, GPU pool components)
    build: Callable[[Stack, Deferred, str, pulumi.ResourceOptions], tuple[Any, list[Any]]]
    # (stack output, GpuPlatform attribute) that only this cloud exports, e.g. Azure's resource group
    outputs: tuple[tuple[str, str], ...] = ()


def builder(name: str) -> PlatformBuilder:
    """How to build a platform on the cloud called ``name``; ``CloudNotSupported`` when it has no builder."""
    return cloud_named(name).facet(PlatformBuilder)
