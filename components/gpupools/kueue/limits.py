"""The sizes Kueue's v1beta1 API accepts, so a stack too big for one ClusterQueue is refused here, not by kubectl.

The tightest of the releases we target (v0.9 to v0.14, where v1beta1 is the stored version):
``config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml`` allows 16 resource groups at both, and 16
flavors and 16 resources per group up to v0.13 (64 from v0.14.0); ``..._resourceflavors.yaml`` allows 8 node labels
and 8 tolerations. ``pkg/webhooks/clusterqueue_webhook.go`` (v0.14.8) caps flavors and covered resources at
256 across all groups, which 16 x 16 stays under.
"""

from __future__ import annotations

MAX_RESOURCE_GROUPS = 16
MAX_FLAVORS_PER_GROUP = 16
MAX_RESOURCES_PER_GROUP = 16
MAX_NODE_LABELS = 8
MAX_TOLERATIONS = 8
