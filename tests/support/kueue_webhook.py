"""Kueue's validating webhook rules that no schema or CEL rule holds, rewritten by us for tests/kueue.

From kubernetes-sigs/kueue v0.14.8 (commit 2f2a452481b23fd664e4133ad51de1caa1d49c3a), read, not copied:
``pkg/webhooks/clusterqueue_webhook.go`` (``validateResourceGroups``, ``validateFlavorQuotas``, the totals) and
``resourceflavor_webhook.go`` (label syntax). A resource or a flavor in two resource groups, quotas in another
order than ``coveredResources``, a negative quota, a limit without a cohort: Kueue refuses each at admission,
though the CRD's schema lets it through. Each function returns what the webhook would refuse, empty when nothing.
"""

from __future__ import annotations

import re
from typing import Any

# apimachinery's validation (pkg/util/validation/validation.go), written out here, not taken from gpupools.
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
QUALIFIED_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def _qualified_name(name: Any) -> bool:
    """apimachinery IsQualifiedName: [prefix/]name, prefix a DNS subdomain, name at most 63."""
    if not isinstance(name, str):
        return False
    prefix, slash, rest = name.rpartition("/")
    if slash and not (prefix and DNS1123_SUBDOMAIN.fullmatch(prefix) and len(prefix) <= 253):
        return False
    return bool(QUALIFIED_NAME_PART.fullmatch(rest)) and len(rest) <= 63


def _quantity_negative(value: Any) -> bool:
    return isinstance(value, (int, float)) and value < 0 or isinstance(value, str) and value.startswith("-")


def cluster_queue_webhook(spec: dict[str, Any]) -> list[str]:
    """clusterqueue_webhook.go ValidateClusterQueue: validateResourceGroups, validateFlavorQuotas, the totals."""
    found = []
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    has_cohort = bool(spec.get("cohort"))
    groups = spec.get("resourceGroups", [])
    for i, group in enumerate(groups):
        covered = group.get("coveredResources", [])
        for name in covered:
            if not _qualified_name(name):
                found.append(f"resourceGroups[{i}]: {name!r} is not a qualified resource name")
            if name in seen_resources:
                found.append(f"resourceGroups[{i}].coveredResources: duplicate {name}")
            seen_resources.add(name)
        flavors = group.get("flavors", [])
        for flavor in flavors:
            if flavor.get("name") in seen_flavors:
                found.append(f"resourceGroups[{i}].flavors: duplicate {flavor.get('name')}")
            seen_flavors.add(flavor.get("name"))
            for j, quota in enumerate(flavor.get("resources", [])[: len(covered)]):
                if quota.get("name") != covered[j]:
                    found.append(
                        f"resourceGroups[{i}] {flavor.get('name')}: {quota.get('name')} must match {covered[j]}"
                    )
                for limit in ("nominalQuota", "borrowingLimit", "lendingLimit"):
                    if limit in quota and _quantity_negative(quota[limit]):
                        found.append(f"resourceGroups[{i}] {flavor.get('name')}: negative {limit}")
                    if limit != "nominalQuota" and limit in quota and not has_cohort:
                        found.append(f"resourceGroups[{i}] {flavor.get('name')}: {limit} needs a cohort")
        if sum(len(f.get("resources", [])) for f in flavors) > 512:
            found.append(f"resourceGroups[{i}]: more than 512 flavor-resource combinations")
    if sum(len(g.get("flavors", [])) for g in groups) > 256:
        found.append("more than 256 flavors across resourceGroups")
    if sum(len(g.get("coveredResources", [])) for g in groups) > 256:
        found.append("more than 256 covered resources across resourceGroups")
    if spec.get("admissionChecks") and spec.get("admissionChecksStrategy"):
        found.append("admissionChecks and admissionChecksStrategy both set")
    return found


def resource_flavor_webhook(spec: dict[str, Any]) -> list[str]:
    """resourceflavor_webhook.go ValidateResourceFlavor: label syntax, taints unique by key and effect."""
    found = []
    for key, value in spec.get("nodeLabels", {}).items():
        if not _qualified_name(key):
            found.append(f"nodeLabels: {key!r} is not a label key")
        if not (isinstance(value, str) and LABEL_VALUE.fullmatch(value) and len(value) <= 63):
            found.append(f"nodeLabels: {value!r} is not a label value")
    pairs = [(t.get("key"), t.get("effect")) for t in spec.get("nodeTaints", [])]
    found += [f"nodeTaints: duplicate {pair}" for pair in {p for p in pairs if pairs.count(p) > 1}]
    for toleration in spec.get("tolerations", []):
        if toleration.get("key") and not _qualified_name(toleration["key"]):
            found.append(f"tolerations: {toleration['key']!r} is not a label key")
    return found


WEBHOOKS = {
    "ClusterQueue": cluster_queue_webhook,
    "ResourceFlavor": resource_flavor_webhook,
    "LocalQueue": lambda spec: [],  # Kueue v0.14.8 has no LocalQueue webhook rule beyond the CRD
}
