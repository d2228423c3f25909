"""The cluster autoscaler's minor version must match the cluster's: one rule for the config and the component.

Source: cluster-autoscaler README "Releases" ("We don't do cross version testing"); the table and its rows'
sources are in ``catalog/autoscaler_versions.py`` and ``docs/sources.md``.
"""

from __future__ import annotations

import re

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.autoscaler_versions import AUTOSCALER_IMAGE_TAGS, autoscaler_image_tag
from ..config.errors import Problem, field_path
from ..config.models import StackConfig


def autoscaler_version_problem(kubernetes_version: str) -> str | None:
    """Why no cluster-autoscaler image fits ``kubernetes_version``, or None."""
    if autoscaler_image_tag(kubernetes_version) is not None:
        return None
    return (
        f"'{kubernetes_version}' has no matching cluster-autoscaler release in gpupools' table, and upstream says "
        '"We don\'t do cross version testing"; allowed with cluster.autoscaler.install: '
        f"{', '.join(AUTOSCALER_IMAGE_TAGS)}"
    )


def cluster_autoscaler_problems(config: StackConfig) -> list[Problem]:
    """``cluster.autoscaler.install`` on a Kubernetes minor the table does not cover is refused; its priorities
    must be patterns the priority expander can compile."""
    cluster = config.cluster
    if cluster is None or not cloud_named(config.cloud).cluster_autoscaler_chart:
        return []
    problems = [
        Problem(field_path("cluster", "autoscaler", "priorities"), why)
        for why in priorities_problems(cluster.autoscaler.priorities)
    ]
    if not cluster.autoscaler.install:
        return problems
    why = autoscaler_version_problem(cluster.kubernetes_version)
    return problems + ([Problem(field_path("cluster", "kubernetesVersion"), why)] if why else [])


def priorities_problems(priorities: dict[str, list[str]]) -> list[str]:
    """Priority expander keys are whole numbers in ASCII digits, values regular expressions it compiles (Go RE2;
    Python's ``re`` is checked instead: close enough for these node group patterns, not identical)."""
    problems = []
    for key, patterns in priorities.items():
        if not (key.isascii() and key.isdigit()):
            problems.append(f'key {key[:20]!r} is not a whole number written in ASCII digits, e.g. "10"')
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as error:
                problems.append(
                    f"{pattern[:80]!r} is not a regular expression ({error}); allowed: a pattern over "
                    "node group names, e.g. .*p4d.*"
                )
    return problems
