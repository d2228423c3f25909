"""Azure's platform facet: ``platform/azure.build``, imported (with the Azure SDK) only when it runs."""

from __future__ import annotations

from typing import Any

import pulumi

from ..catalog.cloud_registry import cloud
from ..domain.stack import Stack
from .builders import PlatformBuilder
from .inputs import Deferred


def _build(stack: Stack, deferred: Deferred, prefix: str, opts: pulumi.ResourceOptions) -> tuple[Any, list[Any]]:
    from . import azure

    cluster, pools = azure.build(stack, deferred, prefix, opts)
    return cluster, list(pools)


cloud("azure").attach(PlatformBuilder(_build, outputs=(("resourceGroupName", "resource_group_name"),)))
