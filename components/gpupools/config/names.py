"""Name and label syntax the clouds and Kubernetes accept: one table per rule, read by config and components alike.

Every pattern is used with ``fullmatch`` so a trailing newline or any other extra character is refused.
"""

from __future__ import annotations

import re

AKS_POOL_NAME = re.compile(r"[a-z][a-z0-9]{0,11}")
EKS_NODE_GROUP_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,62}")
LABEL_KEY = re.compile(r"([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
LABEL_VALUE = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?")
RESERVED_LABEL_PREFIXES = ("nvidia.com/", "kubernetes.azure.com/", "eks.amazonaws.com/", "gpupools.io/")
# Namespaces every cluster already has: a release may go there, but they are never created (or deleted) by us.
CLUSTER_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})
