"""The cluster-autoscaler image for each Kubernetes minor version.

Upstream releases one cluster-autoscaler minor per Kubernetes minor and tests only that pair (cluster-autoscaler
README, "Releases": "We don't do cross version testing or compatibility testing in other environments"), so the
image tag follows the cluster's ``kubernetesVersion``, not the chart's ``appVersion``. Each row: the newest
patch release of that minor we found, and where (``docs/sources.md``). A minor missing here is refused.
"""

from __future__ import annotations

# Kubernetes minor -> cluster-autoscaler image tag.
AUTOSCALER_IMAGE_TAGS: dict[str, str] = {
    "1.30": "v1.30.3",  # release cluster-autoscaler-1.30.3 (2024-11-19; endoflife.date "latest: 1.30.3")
    "1.31": "v1.31.1",  # release cluster-autoscaler-1.31.1 (2024-11-19; endoflife.date "latest: 1.31.1")
    "1.32": "v1.32.7",  # release cluster-autoscaler-1.32.7 (the image tag in public chart 9.46.6 deployments)
    "1.33": "v1.33.5",  # release cluster-autoscaler-1.33.5 (kubernetes/autoscaler#10030 then prepares 1.33.6)
    "1.34": "v1.34.3",  # release cluster-autoscaler-1.34.3
    "1.35": "v1.35.0",  # chart cluster-autoscaler 9.59.0 appVersion 1.35.0 (values.yaml image.tag v1.35.0)
}


def autoscaler_image_tag(kubernetes_version: str) -> str | None:
    """The image tag for a cluster's ``major.minor`` Kubernetes version, or None when the table has none."""
    return AUTOSCALER_IMAGE_TAGS.get(kubernetes_version)
