"""Helm values of the Karpenter chart (1.14.1): the cluster it serves, its interruption queue, its feature gates, and
where its controller runs.

Keys from the chart's ``values.yaml`` (``settings.clusterName``, ``settings.interruptionQueue``,
``settings.featureGates.nodeOverlay``, ``serviceAccount.name``, ``nodeSelector``). The chart already keeps the
controller off nodes Karpenter launched (affinity ``karpenter.sh/nodepool DoesNotExist``) and tolerates only
``CriticalAddonsOnly``, so no GPU taint; the node selector pins it to the system pool, which no autoscaler empties.
NodeOverlay is alpha and off by default (``reference/settings.md``): it is turned on only when a pool needs one.
"""

from __future__ import annotations

from typing import Any

from ..catalog.chart_refs import KARPENTER_SERVICE_ACCOUNT
from ..catalog.clouds import SYSTEM_POOL_NAME
from ..catalog.labels import POOL_LABEL

OS_LABEL = "kubernetes.io/os"


def karpenter_values(cluster_name: Any, interruption_queue: Any, node_overlay: bool) -> dict[str, Any]:
    """``cluster_name`` and ``interruption_queue`` may be outputs (the queue's name once it exists)."""
    return {
        "settings": {
            "clusterName": cluster_name,
            "interruptionQueue": interruption_queue,
            "featureGates": {"nodeOverlay": node_overlay},
        },
        "serviceAccount": {"name": KARPENTER_SERVICE_ACCOUNT},
        "nodeSelector": {OS_LABEL: "linux", POOL_LABEL: SYSTEM_POOL_NAME},
    }
