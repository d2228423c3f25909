"""Kueue quotas for a demand: one ResourceFlavor per pool, one ClusterQueue (and LocalQueue) per team.

Pure functions of small input types, so ``gpupools fit --kueue`` (or anyone) can print them. See docs/kueue.md.
"""

from __future__ import annotations

from .errors import KueueError
from .inputs import PoolFlavor, TeamDemand, pool_flavor
from .names import dns_label
from .objects import DEFAULT_COHORT, KUEUE_API_VERSION, KUEUE_API_VERSIONS, kueue_objects
from .render import render_yaml

__all__ = [
    "DEFAULT_COHORT",
    "KUEUE_API_VERSION",
    "KUEUE_API_VERSIONS",
    "KueueError",
    "PoolFlavor",
    "TeamDemand",
    "dns_label",
    "kueue_objects",
    "pool_flavor",
    "render_yaml",
]
