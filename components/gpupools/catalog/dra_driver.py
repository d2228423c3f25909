"""Facts about NVIDIA's DRA driver for GPUs and the Kubernetes DRA API it serves (sources in docs/sources.md).

* the driver's domain and the ``type``/``profile`` attributes it publishes per device
  (dra-driver-nvidia-gpu docs, reference-resourceslice-attributes.md);
* the Kubernetes minimum (prerequisites.md: "v1.34.2 or later"); stack files name minors, so 1.34;
* the driver's alpha feature gates each sharing mode needs (reference-feature-gates.md), which a stack must name
  in ``gpuSoftware.draAlphaGates`` to get;
* where a DeviceClass ``extendedResourceName`` is served by default: KEP-5004 (``DRAExtendedResource``) is alpha in
  1.34, beta (on by default) in 1.36.
"""

from __future__ import annotations

from typing import Literal

DRA_DRIVER_NAME = "gpu.nvidia.com"
MIN_KUBERNETES_MINOR = 34
MIN_KUBERNETES_PATCH = "1.34.2"
EXTENDED_RESOURCE_MINOR = 36
# The driver's root when the node image installs it (AKS, EKS) and when the GPU Operator does (install.md).
HOST_DRIVER_ROOT = "/"
OPERATOR_DRIVER_ROOT = "/run/nvidia/driver"

AlphaGate = Literal["TimeSlicingSettings", "MPSSupport"]
# Sharing mode (our config key under gpuPools[].sharing) -> the driver's alpha gate it needs.
SHARING_GATES: dict[str, str] = {"timeSlicing": "TimeSlicingSettings", "mps": "MPSSupport"}
# Device kinds, as the driver's ``type`` attribute spells them.
GPU_TYPE = "gpu"
MIG_TYPE = "mig"


def device_token(profile: str | None) -> str:
    """A device kind as a DNS-safe token: ``gpu``, or ``mig-1g.5gb`` (``1g.5gb+me`` -> ``mig-1g.5gb.me``)."""
    return GPU_TYPE if profile is None else f"{MIG_TYPE}-{profile.replace('+', '.')}"
