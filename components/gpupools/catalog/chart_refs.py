"""Where each chart gpupools installs comes from, the version it pins by default, and how versions are spelled.

Versions are spelled as the Helm repositories publish them: the device plugin, dcgm-exporter and
cluster-autoscaler without a ``v`` (``0.20.0``, ``4.8.2``, ``9.59.0``), the GPU Operator with one (``v26.7.0``).
Only exact versions are accepted: ``latest`` and ranges would let a deploy change what runs unseen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ASCII digits: ``\d`` also takes fullwidth and Arabic-Indic digits, which no Helm repository publishes.
DIGITS_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
V_VERSION = re.compile(r"v[0-9]+\.[0-9]+\.[0-9]+")


@dataclass(frozen=True)
class ChartRef:
    """A Helm chart: its name in the repository, the repository URL, the default pinned version and its spelling."""

    name: str
    repo: str
    default_version: str
    version_pattern: re.Pattern[str] = DIGITS_VERSION

    def is_pinned(self, version: str) -> bool:
        """Whether ``version`` is one exact version as this chart's repository spells it."""
        return self.version_pattern.fullmatch(version) is not None


DEVICE_PLUGIN = ChartRef("nvidia-device-plugin", "https://nvidia.github.io/k8s-device-plugin", "0.20.0")
GPU_OPERATOR = ChartRef("gpu-operator", "https://helm.ngc.nvidia.com/nvidia", "v26.7.0", V_VERSION)
# GPU metrics beside the device plugin (the GPU Operator brings its own exporter). The repository is the one
# NVIDIA/dcgm-exporter's README installs from; chart 4.8.2 is git tag 4.5.3-4.8.2 and runs this image tag
# (deployment/values.yaml ``image.tag``), which our values pin explicitly.
DCGM_EXPORTER = ChartRef("dcgm-exporter", "https://nvidia.github.io/dcgm-exporter/helm-charts", "4.8.2")
DCGM_EXPORTER_IMAGE = "nvcr.io/nvidia/k8s/dcgm-exporter"
DCGM_EXPORTER_IMAGE_TAG = "4.5.3-4.8.2-distroless"

# The open-source cluster autoscaler (EKS; AKS runs a managed one). Chart 9.59.0 runs cluster-autoscaler 1.35.0
# (Chart.yaml appVersion).
CLUSTER_AUTOSCALER = ChartRef("cluster-autoscaler", "https://kubernetes.github.io/autoscaler", "9.59.0")
CLUSTER_AUTOSCALER_NAMESPACE = "kube-system"
# A fixed name, so the IAM role's trust policy can name the service account before the chart exists.
CLUSTER_AUTOSCALER_SERVICE_ACCOUNT = "cluster-autoscaler"
# The expanders cluster-autoscaler 1.35.0 offers on AWS (expander.go AvailableExpanders, less price: GCE only,
# and grpc: needs a server of your own). ``priority`` reads the cluster-autoscaler-priority-expander ConfigMap.
CLUSTER_AUTOSCALER_EXPANDERS = ("least-waste", "most-pods", "random", "priority")
DEFAULT_EXPANDER = "least-waste"

# NVIDIA's DRA driver for GPUs (kubernetes-sigs/dra-driver-nvidia-gpu), published as an OCI chart: install.md
# "helm install dra-driver-nvidia-gpu oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu".
# Chart.yaml 0.4.1: "strict semver: no v prefix allowed", kubeVersion ">=1.32.0-0". Driver 0.5.0 exists (released
# 2026-08-19: consumable capacity, multi-user MPS); 0.4.1 stays the default, the release the reference files hold.
DRA_DRIVER = ChartRef("dra-driver-nvidia-gpu", "oci://registry.k8s.io/dra-driver-nvidia/charts", "0.4.1")

# Karpenter (EKS node provisioner; aws/karpenter-provider-aws). The getting-started guide for v1.14 installs
# "oci://public.ecr.aws/karpenter/karpenter --version 1.14.1 --namespace kube-system" (read 2026-11-28 at
# 1d927085dd81); the chart ships its CRDs (NodePool, NodeClaim, NodeOverlay, EC2NodeClass) in ``crds/``.
# v1.15.0's docs were published in October 2026; 1.14.1 is the release the reference copy holds.
KARPENTER = ChartRef("karpenter", "oci://public.ecr.aws/karpenter", "1.14.1")
KARPENTER_NAMESPACE = "kube-system"
# A fixed name, so the Pod Identity association names the service account before the chart exists.
KARPENTER_SERVICE_ACCOUNT = "karpenter"
