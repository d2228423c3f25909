"""The cluster-autoscaler image for each Kubernetes minor version.

Upstream releases one cluster-autoscaler minor per Kubernetes minor and tests only that pair (cluster-autoscaler
README, "Releases": "We don't do cross version testing or compatibility testing in other environments"), so the
image tag follows the cluster's ``kubernetesVersion``, not the chart's ``appVersion``. Each row: the newest patch
release of that minor, its tag date and commit, read on ``READ_ON`` from a kubernetes/autoscaler git snapshot
(``git for-each-ref refs/tags``; tags to 2026-08-06, commits to 2026-08-22; no cluster-autoscaler-1.37.x tag yet).
A minor missing here is refused (``docs/sources.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

READ_ON = date(2026, 11, 26)
IMAGE = "registry.k8s.io/autoscaling/cluster-autoscaler"  # the chart's values.yaml image.repository
SOURCE = "kubernetes/autoscaler tags cluster-autoscaler-<version> (git snapshot, newest commit 2026-08-22)"


@dataclass(frozen=True)
class AutoscalerRelease:
    """The newest cluster-autoscaler patch of one minor: its image tag, tag date and tagged commit."""

    minor: str
    tag: str  # the image tag, v<version>
    released: date  # the annotated tag's date
    commit: str


def _row(minor: str, tag: str, released: str, commit: str) -> AutoscalerRelease:
    return AutoscalerRelease(minor, tag, date.fromisoformat(released), commit)


# Kubernetes minor -> the newest cluster-autoscaler release of that minor.
AUTOSCALER_RELEASES: dict[str, AutoscalerRelease] = {
    row.minor: row
    for row in (
        _row("1.29", "v1.29.5", "2024-10-16", "d4bbc686ac02a77a6ad1362fe7bbda387e8f074a"),
        _row("1.30", "v1.30.7", "2025-10-30", "4be8b2d7d49352fc158fec8773186516eec126c8"),
        _row("1.31", "v1.31.5", "2025-10-08", "f0fb6c4b57c807f7544afbb2819ed2bf351f69c8"),
        _row("1.32", "v1.32.7", "2026-02-13", "f645beb1ec472b785e5c196b3768c0d93195a75a"),
        _row("1.33", "v1.33.6", "2026-07-22", "be4b5a18814a53539d0fe6299c92839152cae54c"),
        _row("1.34", "v1.34.5", "2026-07-22", "cb2123ed13148c38fbdb1ede42d8e99761ee2909"),
        _row("1.35", "v1.35.2", "2026-07-22", "2d42588803c71fe9b35dcd9e3669ac6bb550ca22"),
        _row("1.36", "v1.36.1", "2026-07-22", "35e8a280425c76a4040f57ae0fa232a952c02024"),
    )
}
# Kubernetes minor -> cluster-autoscaler image tag.
AUTOSCALER_IMAGE_TAGS: dict[str, str] = {minor: row.tag for minor, row in AUTOSCALER_RELEASES.items()}


def autoscaler_image_tag(kubernetes_version: str) -> str | None:
    """The image tag for a cluster's ``major.minor`` Kubernetes version, or None when the table has none."""
    return AUTOSCALER_IMAGE_TAGS.get(kubernetes_version)
