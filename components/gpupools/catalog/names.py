"""Name, id, label and tag syntax the clouds and Kubernetes accept: one table per rule, read by config and components.

Every pattern is used with ``fullmatch`` so a trailing newline or any other extra character is refused.
The ``*_problem`` helpers return why a value breaks a rule (``None`` when it does not), so the rules modules
only have to name the field. Sources for each rule: ``docs/sources.md``.
"""

from __future__ import annotations

import re

# --- Kubernetes object names -------------------------------------------------------------------------------------
DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
DNS1123_SUBDOMAIN_MAX = 253
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
# Names we derive from a pool name: the smoke-test Job ``<pool>-smoke``, the custom MIG layout
# ``gpupools-<pool>`` (a label value) and the device plugin config ``<pool>``. The longest prefix or suffix
# is 9 characters and a label value or Job name holds 63, so a pool name may have 54.
DERIVED_NAME_AFFIXES = ("gpupools-", "-smoke")
POOL_NAME_MAX = 63 - max(len(affix) for affix in DERIVED_NAME_AFFIXES)

# --- Pool names per cloud ----------------------------------------------------------------------------------------
AKS_POOL_NAME = re.compile(r"[a-z][a-z0-9]{0,11}")
# EKS accepts letters, digits, '-' and '_' (1..63); we also need the name in Kubernetes object names, so only
# the DNS-1123 label subset, short enough for every derived name.
EKS_NODE_GROUP_NAME = re.compile(rf"[a-z0-9]([-a-z0-9]{{0,{POOL_NAME_MAX - 2}}}[a-z0-9])?")

# --- Cluster and cloud names -------------------------------------------------------------------------------------
# AKS uses the cluster name as its dnsPrefix: 1..54 letters, digits and hyphens, alphanumeric at both ends.
AKS_DNS_PREFIX = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9]{0,52}[A-Za-z0-9])?")
# EKS CreateCluster: 1..100 letters, digits, hyphens, underscores, starting alphanumeric.
EKS_CLUSTER_NAME = re.compile(r"[A-Za-z0-9][-A-Za-z0-9_]{0,99}")
# Azure resource groups: 1..90 letters, digits, underscores, hyphens, periods, parentheses; not ending in '.'.
AZURE_RESOURCE_GROUP = re.compile(r"[-\w.()]{0,89}[-\w()]")
# Azure locations as the ARM API spells them: eastus, southcentralus, westeurope, eastus2.
AZURE_LOCATION = re.compile(r"[a-z][a-z0-9]{1,39}")
AWS_REGION = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]")  # ASCII: ``\d`` would take look-alike digits
# An availability zone by name: its region and a letter (EC2 User Guide, "Availability Zones"), e.g. us-east-1a.
AWS_ZONE = re.compile(r"(?P<region>[a-z]{2}(-[a-z]+)+-[0-9])[a-z]")

# --- Node sizes --------------------------------------------------------------------------------------------------
# How each cloud spells its sizes, ASCII only (ours: every published name is): Azure ``Standard_ND96asr_v4``,
# ``Standard_E96-48ads_v5``; EC2 ``p4d.24xlarge``, ``p6-b200.48xlarge``, ``u-6tb1.metal``. Each cloud's
# ``SizeNaming`` (``catalog/<cloud>_cloud.py``) names its pattern.
AZURE_VM_SIZE = re.compile(r"Standard_[A-Za-z0-9][-A-Za-z0-9_]{0,79}")
EC2_INSTANCE_TYPE = re.compile(r"[a-z][a-z0-9-]{0,29}\.[a-z0-9-]{1,30}")

# --- Cloud resource ids ------------------------------------------------------------------------------------------
VPC_ID = re.compile(r"vpc-([0-9a-f]{8}|[0-9a-f]{17})")
SUBNET_ID = re.compile(r"subnet-([0-9a-f]{8}|[0-9a-f]{17})")
CAPACITY_RESERVATION_ID = re.compile(r"cr-[0-9a-f]{17}")
# An IAM role ARN: partition, 12-digit account, role/<path/>name (IAM: 64 characters at most for the name).
IAM_ROLE_ARN = re.compile(r"arn:aws(-cn|-us-gov)?:iam::[0-9]{12}:role/([\w+=,.@-]+/)*[\w+=,.@-]{1,64}", re.ASCII)
CAPACITY_RESERVATION_GROUP_ARN = re.compile(
    r"arn:(?P<partition>aws(-cn|-us-gov)?):resource-groups:(?P<region>[a-z]{2}(-[a-z]+)+-[0-9]):[0-9]{12}:"
    r"group/[A-Za-z0-9_.-]{1,300}"
)
AZURE_CAPACITY_RESERVATION_GROUP_ID = re.compile(
    r"/subscriptions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/resourceGroups/[-\w.()]{1,90}"
    r"/providers/Microsoft\.Compute/capacityReservationGroups/[-\w.]{1,80}",
    re.IGNORECASE,
)

# --- Kubernetes labels -------------------------------------------------------------------------------------------
LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
LABEL_VALUE = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?")
# Label key prefixes that belong to Kubernetes, the clouds or us; a domain listed here also reserves its subdomains.
RESERVED_LABEL_DOMAINS = (
    "kubernetes.io",
    "k8s.io",
    "kubernetes.azure.com",
    "eks.amazonaws.com",
    "nvidia.com",
    "gpupools.io",
)

# --- Namespaces --------------------------------------------------------------------------------------------------
# Namespaces every cluster already has: a release may go there, but they are never created (or deleted) by us.
CLUSTER_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})

# --- Cloud tags --------------------------------------------------------------------------------------------------
MAX_TAGS = 50
AZURE_TAG_KEY_MAX, AZURE_TAG_VALUE_MAX = 512, 256
AZURE_TAG_FORBIDDEN = "<>%&\\?/"
AZURE_RESERVED_TAG_PREFIXES = ("microsoft", "azure", "windows")
AWS_TAG_KEY_MAX, AWS_TAG_VALUE_MAX = 128, 256
AWS_RESERVED_TAG_PREFIX = "aws:"


def label_key_problem(key: str) -> str | None:
    """Why ``key`` is not a Kubernetes label key (``[prefix/]name``), or None."""
    prefix, slash, name = key.rpartition("/")
    if slash and not (len(prefix) <= DNS1123_SUBDOMAIN_MAX and DNS1123_SUBDOMAIN.fullmatch(prefix)):
        return (
            f"prefix '{prefix}' is not a DNS subdomain (lowercase letters, digits, '-' and '.', "
            f"at most {DNS1123_SUBDOMAIN_MAX} characters)"
        )
    if not LABEL_NAME.fullmatch(name):
        return "name part must be 1..63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
    return None


def label_value_problem(value: str) -> str | None:
    if not LABEL_VALUE.fullmatch(value):
        return (
            "value must be empty or 1..63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
        )
    return None


def nvidia_namespace_problem(namespace: str) -> str | None:
    """Where the NVIDIA charts may go: a namespace name, and not ``default`` (config ``gpuSoftware.namespace`` and the
    chart components)."""
    if not DNS1123_LABEL.fullmatch(namespace):
        return (
            f"{namespace[:80]!r} is not a Kubernetes namespace name; allowed: at most 63 lowercase letters, digits "
            "and '-', starting and ending with a letter or digit"
        )
    if namespace == "default":
        return "namespace 'default' is refused: the NVIDIA charts want their own namespace"
    return None


def reserved_label_domain(key: str) -> str | None:
    """The reserved domain a label key's prefix falls under (``node-role.kubernetes.io`` -> ``kubernetes.io``)."""
    prefix = key.rpartition("/")[0]
    for domain in RESERVED_LABEL_DOMAINS:
        if prefix == domain or prefix.endswith("." + domain):
            return domain
    return None


# A Pulumi stack reference: `<stack>`, `<project>/<stack>` or `<org>/<project>/<stack>` (Pulumi docs, "Stack
# references"); each part as Pulumi spells stack and project names (letters, digits, '-', '_', '.').
STACK_REFERENCE_PATTERN = r"^(?:[A-Za-z0-9._-]{1,100}/){0,2}[A-Za-z0-9._-]{1,100}$"
