"""Per-cloud facts: the values each cloud offers GPU pools, gpupools' defaults for them, and the limits they set.

The facts code asks by cloud (pool keys, name and tag limits, ...) sit on each cloud's object
(``catalog/<cloud>_cloud.py``, reached through ``cloud_registry.cloud``); these are the values its rules name.

The rules (``gpupools.resolve``) refuse what is not listed here, the component args accept the same lists, and
the docstrings of typed args are tested against them. Sources: ``docs/sources.md``.
"""

from __future__ import annotations

# --- AKS ---------------------------------------------------------------------------------------------------------
DEFAULT_OS_SKU = "Ubuntu"
# The osSKU values the pinned azure-native 3.29.0 containerservice.OSSKU enum offers for Linux GPU pools.
OS_SKUS = ("Ubuntu", "Ubuntu2204", "AzureLinux", "AzureLinux3")
REFUSED_OS_SKUS = {
    "Ubuntu2404": "the pinned azure-native 3.29.0 OSSKU enum has no Ubuntu2404; use Ubuntu or Ubuntu2204",
    "CBLMariner": "Azure Linux 2.0 (CBLMariner) is retired on AKS; use AzureLinux3",
    "Windows2019": "the NVIDIA device plugin and GPU Operator need Linux nodes",
    "Windows2022": "the NVIDIA device plugin and GPU Operator need Linux nodes",
}
AZURE_LINUX_SKUS = ("AzureLinux", "AzureLinux3")
# GPUs whose AKS sizes (NC A100 v4, ND A100 v4, NC/ND H100 v5, ND H200 v5) we keep off Azure Linux.
AZURE_LINUX_REFUSED_GPUS = frozenset({"A100-40GB", "A100-80GB", "H100-80GB", "H100-NVL-94GB", "H200-141GB"})
# The runtime class the GPU Operator names on AKS nodes whose driver AKS preinstalls.
AKS_RUNTIME_CLASS = "nvidia-container-runtime"
SYSTEM_POOL_OS_SKU = "Ubuntu"  # the system pool AksCluster creates
AKS_SYSTEM_POOL_SIZE = "Standard_D4s_v5"  # its VM size when the stack names none; ours
# AKS's gpuInstanceProfile values: one MIG profile per pool, every GPU fully cut.
AKS_GPU_INSTANCE_PROFILES = ("MIG1g", "MIG2g", "MIG3g", "MIG4g", "MIG7g")
# AKS node pools: maxPods range and the pods its own per-node daemonsets take (kube-proxy, cloud-node-manager,
# the Azure Disk and Azure File CSI nodes, azure-ip-masq-agent, the CNI's own agent, and room for monitoring
# add-ons such as ama-logs / ama-metrics-node). Ours: AKS publishes no fixed figure; 10 is a generous count.
AKS_MIN_PODS, AKS_MAX_PODS = 10, 250
# Every AKS node pool needs room for 30 pods in all (maxPods x nodes), so a one-node pool needs maxPods >= 30
# (aks-docs concepts-network-ip-address-planning.md; Azure/AKS#1422).
AKS_MIN_POOL_PODS = 30
AKS_SYSTEM_DAEMONSET_PODS = 10
# Azure CNI Overlay on the clusters gpupools creates: AKS's default pod CIDR, and the /24 each node takes from it
# ("Each node in your cluster is assigned a /24 (256 IP addresses) subnet for pods", IP address planning), so
# the cluster holds at most 2 ** (24 - 16) = 256 nodes, surge and upgrade nodes included.
AKS_OVERLAY_POD_CIDR = "10.244.0.0/16"
AKS_OVERLAY_NODE_PREFIX = 24
# Capacity reservation groups: the cluster's user-assigned identity gets this built-in role on the resource group
# holding each group (aks-docs use-capacity-reservation-groups.md @ 3a50b560: `az role assignment create
# --assignee $IDENTITY_ID --role "Contributor" --scope /subscriptions/<subscription-id>/resourceGroups/<name>`;
# the role's id from learn.microsoft.com/azure/role-based-access-control/built-in-roles, "Contributor").
CONTRIBUTOR_ROLE_ID = "b24988ac-6180-42a0-ab88-20f7382dd24c"
# Pods beyond slices and daemonsets in the computed default: rollouts, debug pods, non-GPU helpers. Ours.
MAX_PODS_HEADROOM = 10
# The most NVIDIA daemonset pods any installer lands on one GPU node with every option on (the GPU Operator's
# driver, container toolkit, device plugin, MPS control daemon, GPU feature discovery, NFD worker, MIG manager,
# validator, DCGM and its exporter), plus one to spare. Ours: the computed maxPods counts this many whether or
# not metrics or MPS are on, so toggling them never changes maxPods, which AKS fixes at creation.
GPU_NODE_DAEMONSET_ALLOWANCE = 11

# --- EKS ---------------------------------------------------------------------------------------------------------
DEFAULT_AMI_TYPE = "AL2023_x86_64_NVIDIA"
AMI_TYPES = (DEFAULT_AMI_TYPE,)
REFUSED_AMI_TYPES = {
    "BOTTLEROCKET_x86_64_NVIDIA": "Bottlerocket runs its own NVIDIA device plugin and MIG handling, and gpupools would "
    "install a second device plugin beside it; use AL2023_x86_64_NVIDIA",
    "AL2023_x86_64_STANDARD": "it has no NVIDIA driver and the GPU Operator has no driver container for Amazon Linux; "
    "use AL2023_x86_64_NVIDIA (driver preinstalled)",
    "AL2_x86_64_GPU": "Amazon Linux 2 EKS AMIs are no longer published for current Kubernetes versions; "
    "use AL2023_x86_64_NVIDIA",
}
# The Karpenter AMI alias family of each allowed EKS AMI type (karpenter docs v1.14 concepts/nodeclasses.md,
# ``amiSelectorTerms`` alias ``al2023@<version>``: the EKS optimized AMI, whose NVIDIA variant Karpenter picks for
# NVIDIA instance types, so the driver stays preinstalled as with the node group's AMI type).
KARPENTER_AMI_ALIASES = {DEFAULT_AMI_TYPE: "al2023"}
KARPENTER_AMI_VERSION = "latest"  # a new EKS AMI is drift: Karpenter replaces nodes within the pool's budget
# Instance families whose capacity is scarce enough that an on-demand request is likely to fail without a reservation.
EKS_SYSTEM_NODE_SIZE = "m6i.large"  # the system node group's instance type when the stack names none; ours
SCARCE_FAMILIES = ("p4d.", "p4de.", "p5.", "p5e.", "p5en.", "p6-b200.")

# --- Both --------------------------------------------------------------------------------------------------------
# The CPU pool a created cluster gets for system pods: its name (and ``POOL_LABEL`` value) and node count. Ours.
SYSTEM_POOL_NAME = "system"
SYSTEM_POOL_COUNT = 2
# What each cloud does with a fixed-at-creation field left unset, by wire name (docs/sources.md): the field is sent
# as unset when it is written with this value, so writing a default out never renames or replaces a pool.
CLOUD_DEFAULTS: dict[str, str | int] = {"scaleSetPriority": "Regular", "spotMaxPrice": -1, "capacityType": "ON_DEMAND"}
