"""The cluster autoscaler's minor version must match the cluster's: one rule for the config and the component.

Source: cluster-autoscaler README "Releases" ("We don't do cross version testing"); the table and its rows'
sources are in ``catalog/autoscaler_versions.py`` and ``docs/sources.md``.
"""

from __future__ import annotations

from ..catalog.autoscaler_versions import AUTOSCALER_IMAGE_TAGS, autoscaler_image_tag
from ..config.errors import Problem, field_path
from ..config.models import StackConfig


def autoscaler_version_problem(kubernetes_version: str) -> str | None:
    """Why no cluster-autoscaler image fits ``kubernetes_version``, or None."""
    if autoscaler_image_tag(kubernetes_version) is not None:
        return None
    return (f"'{kubernetes_version}' has no matching cluster-autoscaler release in gpupools' table, and upstream says "
            "\"We don't do cross version testing\"; allowed with cluster.autoscaler.install: "
            f"{', '.join(AUTOSCALER_IMAGE_TAGS)}")


def cluster_autoscaler_problems(config: StackConfig) -> list[Problem]:
    """``cluster.autoscaler.install`` on a Kubernetes minor the table does not cover is refused."""
    cluster = config.cluster
    if config.cloud != "aws" or cluster is None or not cluster.autoscaler.install:
        return []
    why = autoscaler_version_problem(cluster.kubernetes_version)
    return [Problem(field_path("cluster", "kubernetesVersion"), why)] if why else []
