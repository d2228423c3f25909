"""A Kubernetes version the cloud offers: one rule for the config's ``cluster.kubernetesVersion`` and the components'
``kubernetes_version`` (table and sources: ``catalog/kubernetes_versions.py``, ``docs/sources.md``)."""

from __future__ import annotations

import re

from ..catalog.cloud import KubernetesOffer
from ..catalog.cloud_registry import cloud as cloud_named

# ASCII digits only (``\d`` would take fullwidth and Arabic-Indic ones); a node pool may name a patch.
_VERSION = re.compile(r"(?P<minor>1\.[0-9]{2})(\.[0-9]{1,3})?")


def kubernetes_version_problem(cloud: str, version: str, patch: bool = False) -> str | None:
    """Why ``version`` (``1.33``, or ``1.33.2`` where ``patch``) is not a minor ``cloud`` offers, or None."""
    match = _VERSION.fullmatch(version)
    offer = cloud_named(cloud).facet(KubernetesOffer)
    offered = offer.minors
    allowed = f"allowed: {', '.join(offered)}" + (" (or with a patch, e.g. 1.33.2)" if patch else "")
    if match is None or (match.group(2) and not patch):
        return f"{version[:40]!r} is not a Kubernetes minor version such as 1.33; {allowed}"
    if match["minor"] not in offered:
        return f"{match['minor']} is not a Kubernetes version {offer.service} offers; {allowed}"
    return None
