"""Our own schema for the Kueue objects gpupools writes, from Kueue v0.14.8's documented ``kueue.x-k8s.io/v1beta1``
fields, and the CEL rules of Kueue's CRDs that apply to them, rewritten by us.

Why not the CRD files themselves: the project reads others' data files but never copies them in. So this module is
ours, written from what upstream documents and from reading (not copying) its CRDs:

- the API reference ``site/content/en/docs/reference/kueue.v1beta1.md`` (ClusterQueueSpec, ResourceGroup,
  FlavorQuotas, ResourceQuota, ClusterQueuePreemption, BorrowWithinCohort, QueueingStrategy, ResourceFlavorSpec,
  LocalQueueSpec) and the CRDs as read, ``config/components/crd/bases/kueue.x-k8s.io_{clusterqueues,
  resourceflavors,localqueues}.yaml``: kubernetes-sigs/kueue (Apache-2.0) tag v0.14.8, commit
  2f2a452481b23fd664e4133ad51de1caa1d49c3a;
- the size limits of the same files at tag v0.9.5 (commit 12d520ce0dfea38f0a3ee55a630c7e26b0e5b517), because
  gpupools targets v0.9 to v0.14: v0.14.0 raised flavors, covered resources and resources per group from 16 to 64,
  so 16 is the tightest;
- Kubernetes' documented name and quantity grammars (apimachinery ``IsDNS1123Label``/``IsDNS1123Subdomain``,
  ``resource.Quantity``'s grammar in its doc comment).

It is narrower than Kueue on purpose: every object we write has ``additionalProperties: false``, so a field gpupools
does not mean to write (``nodeTaints``, ``topologyName``, a typo) is refused even where Kueue would take it. An object
that passes is one whose every field we meant and whose values Kueue documents as valid.

``SCHEMAS`` holds one JSON Schema (draft 2020-12) per kind; ``CEL_RULES`` the CEL rules, each evaluated with
cel-python where its ``path`` is in the object. Transition rules (those reading ``oldSelf``: LocalQueue's immutable
``clusterQueue``, a flavor with ``topologyName``) are left out: they compare with an earlier version of the object,
which a create has not got. The webhook's rules are in ``kueue_webhook.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

API_VERSION = "kueue.x-k8s.io/v1beta1"

# --- Names and quantities ------------------------------------------------------------------------------------------
_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL = {"type": "string", "pattern": f"^{_LABEL}$", "maxLength": 63}
DNS1123_SUBDOMAIN = {"type": "string", "pattern": rf"^{_LABEL}(\.{_LABEL})*$", "maxLength": 253}

# resource.Quantity: <signedNumber><suffix>, suffix a binary SI (Ki..Ei), a decimal SI (n u m "" k M G T P E) or an
# exponent (e/E and a signed number). The sign is allowed by the grammar; the webhook refuses negative quotas.
_NUMBER = r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
_SIGNED = rf"(\+|-)?{_NUMBER}"
_SUFFIX = rf"(([KMGTPE]i)|[numkMGTPE]|([eE]{_SIGNED}))"
QUANTITY_PATTERN = f"^{_SIGNED}{_SUFFIX}?$"
QUANTITY = {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": QUANTITY_PATTERN}]}

# --- Sizes: the tightest of v0.9.5 .. v0.14.8 ----------------------------------------------------------------------
MAX_RESOURCE_GROUPS = 16  # ClusterQueueSpec.resourceGroups, 16 at every release
MAX_PER_GROUP = 16  # ResourceGroup.coveredResources and .flavors, FlavorQuotas.resources: 16 to v0.13, 64 from v0.14
MAX_NODE_LABELS = 8  # ResourceFlavorSpec.nodeLabels
MAX_TOLERATIONS = 8  # ResourceFlavorSpec.tolerations


def _strict(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object we write: only these fields."""
    found: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        found["required"] = list(required)
    return found


def _string_map(max_properties: int | None = None) -> dict[str, Any]:
    """A map of strings (labels); the keys' and values' syntax is the webhook's check."""
    found: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "string"}}
    if max_properties is not None:
        found["maxProperties"] = max_properties
    return found


def _list(items: dict[str, Any], max_items: int, min_items: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = {"type": "array", "items": items, "maxItems": max_items}
    if min_items:
        found["minItems"] = min_items
    return found


def _metadata(namespaced: bool) -> dict[str, Any]:
    """A custom resource's name is a DNS-1123 subdomain; a namespaced one lives in a namespace (a DNS-1123 label)."""
    if namespaced:
        return _strict({"name": DNS1123_SUBDOMAIN, "namespace": DNS1123_LABEL}, ("name", "namespace"))
    return _strict({"name": DNS1123_SUBDOMAIN}, ("name",))


def _object(kind: str, spec: dict[str, Any], namespaced: bool = False) -> dict[str, Any]:
    schema = _strict(
        {
            "apiVersion": {"const": API_VERSION},
            "kind": {"const": kind},
            "metadata": _metadata(namespaced),
            "spec": spec,
        },
        ("apiVersion", "kind", "metadata", "spec"),
    )
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": f"{kind} {API_VERSION}", **schema}


# ResourceQuota: a resource's quota on one flavor (nominalQuota required; the limits only with a cohort).
RESOURCE_QUOTA = _strict(
    {"name": {"type": "string"}, "nominalQuota": QUANTITY, "borrowingLimit": QUANTITY, "lendingLimit": QUANTITY},
    ("name", "nominalQuota"),
)
# FlavorQuotas: a flavor of a group and a quota for each covered resource.
FLAVOR_QUOTAS = _strict(
    {"name": DNS1123_SUBDOMAIN, "resources": _list(RESOURCE_QUOTA, MAX_PER_GROUP, 1)}, ("name", "resources")
)
RESOURCE_GROUP = _strict(
    {
        "coveredResources": _list({"type": "string"}, MAX_PER_GROUP, 1),
        "flavors": _list(FLAVOR_QUOTAS, MAX_PER_GROUP, 1),
    },
    ("coveredResources", "flavors"),
)
# ClusterQueuePreemption and its enums (PreemptionPolicy, BorrowWithinCohortPolicy); absent means "Never".
PREEMPTION = _strict(
    {
        "reclaimWithinCohort": {"enum": ["Never", "LowerPriority", "Any"]},
        "withinClusterQueue": {"enum": ["Never", "LowerPriority", "LowerOrNewerEqualPriority"]},
        "borrowWithinCohort": _strict(
            {"policy": {"enum": ["Never", "LowerPriority"]}, "maxPriorityThreshold": {"type": "integer"}}
        ),
    }
)
# metav1.LabelSelector: `{}` selects every namespace.
LABEL_SELECTOR = _strict(
    {
        "matchLabels": _string_map(),
        "matchExpressions": {
            "type": "array",
            "items": _strict(
                {
                    "key": {"type": "string"},
                    "operator": {"enum": ["In", "NotIn", "Exists", "DoesNotExist"]},
                    "values": {"type": "array", "items": {"type": "string"}},
                },
                ("key", "operator"),
            ),
        },
    }
)
CLUSTER_QUEUE_SPEC = _strict(
    {
        "namespaceSelector": LABEL_SELECTOR,
        "cohort": DNS1123_SUBDOMAIN,
        "queueingStrategy": {"enum": ["StrictFIFO", "BestEffortFIFO"]},
        "preemption": PREEMPTION,
        "resourceGroups": _list(RESOURCE_GROUP, MAX_RESOURCE_GROUPS),
    },
    ("resourceGroups",),
)
# corev1.Toleration as ResourceFlavorSpec.tolerations holds it; operator and effect are the CEL rules' checks.
TOLERATION = _strict(
    {
        "key": {"type": "string"},
        "operator": {"type": "string"},
        "value": {"type": "string"},
        "effect": {"type": "string"},
        "tolerationSeconds": {"type": "integer"},
    }
)
RESOURCE_FLAVOR_SPEC = _strict(
    {"nodeLabels": _string_map(MAX_NODE_LABELS), "tolerations": _list(TOLERATION, MAX_TOLERATIONS)}
)
LOCAL_QUEUE_SPEC = _strict({"clusterQueue": DNS1123_SUBDOMAIN}, ("clusterQueue",))

SCHEMAS = {
    "ClusterQueue": _object("ClusterQueue", CLUSTER_QUEUE_SPEC),
    "ResourceFlavor": _object("ResourceFlavor", RESOURCE_FLAVOR_SPEC),
    "LocalQueue": _object("LocalQueue", LOCAL_QUEUE_SPEC, namespaced=True),
}


# --- CEL ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CelRule:
    kind: str
    path: str  # where ``self`` is: dotted fields, ``[]`` for each item of a list
    rule: str
    message: str


CEL_RULES = (
    # ClusterQueue spec, x-kubernetes-validations "borrowingLimit must be nil when cohort is empty".
    CelRule(
        "ClusterQueue",
        "spec",
        "has(self.cohort) || !has(self.resourceGroups) || "
        "self.resourceGroups.all(g, g.flavors.all(f, f.resources.all(q, !has(q.borrowingLimit))))",
        "a borrowingLimit needs a cohort to borrow from",
    ),
    # ClusterQueue spec.preemption, "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"; an absent
    # field is its default, Never, as the server would have filled it in.
    CelRule(
        "ClusterQueue",
        "spec.preemption",
        "!has(self.borrowWithinCohort) || !has(self.borrowWithinCohort.policy) || "
        "self.borrowWithinCohort.policy == 'Never' || "
        "(has(self.reclaimWithinCohort) && self.reclaimWithinCohort != 'Never')",
        "borrowing with preemption needs reclaimWithinCohort other than Never",
    ),
    # ClusterQueue spec.resourceGroups[], "flavors must have the same number of resources as the coveredResources".
    CelRule(
        "ClusterQueue",
        "spec.resourceGroups[]",
        "self.flavors.all(f, f.resources.size() == self.coveredResources.size())",
        "each flavor lists one quota per covered resource",
    ),
    # ClusterQueue spec.resourceGroups[].flavors: `x-kubernetes-list-type: map` keyed by name, which the server holds.
    CelRule(
        "ClusterQueue",
        "spec.resourceGroups[].flavors",
        "self.all(f, self.filter(g, g.name == f.name).size() == 1)",
        "a flavor appears once in a resource group",
    ),
    # ClusterQueue spec.resourceGroups[].flavors[].resources: the same, keyed by name.
    CelRule(
        "ClusterQueue",
        "spec.resourceGroups[].flavors[].resources",
        "self.all(q, self.filter(r, r.name == q.name).size() == 1)",
        "a resource appears once in a flavor's quotas",
    ),
    # ResourceFlavor spec.tolerations, "operator must be Exists when 'key' is empty, ...": per toleration here.
    CelRule(
        "ResourceFlavor",
        "spec.tolerations[]",
        "has(self.key) || (has(self.operator) && self.operator == 'Exists')",
        "a toleration with no key must use operator Exists",
    ),
    # ResourceFlavor spec.tolerations, "effect must be 'NoExecute' when 'tolerationSeconds' is set".
    CelRule(
        "ResourceFlavor",
        "spec.tolerations[]",
        "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
        "tolerationSeconds goes with effect NoExecute only",
    ),
    # ResourceFlavor spec.tolerations, "supported toleration values: 'Equal'(default), 'Exists'".
    CelRule(
        "ResourceFlavor",
        "spec.tolerations[]",
        "!has(self.operator) || self.operator in ['Equal', 'Exists']",
        "a toleration's operator is Equal or Exists",
    ),
    # ResourceFlavor spec.tolerations, "a value must be empty when 'operator' is 'Exists'".
    CelRule(
        "ResourceFlavor",
        "spec.tolerations[]",
        "!has(self.value) || !has(self.operator) || self.operator != 'Exists'",
        "a toleration with operator Exists has no value",
    ),
    # ResourceFlavor spec.tolerations, "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'".
    CelRule(
        "ResourceFlavor",
        "spec.tolerations[]",
        "!has(self.effect) || self.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute']",
        "a toleration's effect is NoSchedule, PreferNoSchedule or NoExecute",
    ),
)
