"""Facts about NVIDIA's DRA driver for GPUs and the Kubernetes DRA API it serves (sources in docs/sources.md).

* the driver's domain and the ``type``/``profile`` attributes it publishes per device
  (dra-driver-nvidia-gpu docs, reference-resourceslice-attributes.md);
* the Kubernetes minimum (prerequisites.md: "v1.34.2 or later"); stack files name minors, so 1.34;
* the driver's alpha feature gates each sharing mode needs (reference-feature-gates.md), which a stack must name
  in ``gpuSoftware.draAlphaGates`` to get;
* where a DeviceClass ``extendedResourceName`` is served by default: KEP-5004 (``DRAExtendedResource``) is alpha in
  1.34, beta (on by default) in 1.36, GA in 1.37;
* the cluster autoscaler's ``--enable-dynamic-resource-allocation``: default false up to 1.34.x (flags.go at
  cluster-autoscaler-1.34.3/1.34.5), locked true from 1.35.0 (``=false`` is fatal);
* the driver's opaque claim config (api/nvidia.com/resource/v1beta1 at v0.4.1): ``GpuConfig`` for whole GPUs,
  ``MigDeviceConfig`` for MIG devices, whose sharing has no time-slicing settings.

The chart stays pinned at 0.4.1 (the release the reference files hold). Driver 0.5.0 exists (released 2026-08-19:
consumable capacity, multi-user MPS); nothing here emits a 0.5.0-only field (``multiUser``), which 0.4.1's strict
decoder would refuse.
"""

from __future__ import annotations

from typing import Literal

DRA_DRIVER_NAME = "gpu.nvidia.com"
MIN_KUBERNETES_MINOR = 34
MIN_KUBERNETES_PATCH = "1.34.2"
EXTENDED_RESOURCE_MINOR = 36
# cluster-autoscaler minors from which DRA handling is on (and locked on); below it needs the flag.
AUTOSCALER_DRA_ON_MINOR = 35
AUTOSCALER_DRA_FLAG = "enable-dynamic-resource-allocation"
# The driver's opaque claim parameters (api.go: GroupName resource.nvidia.com, Version v1beta1).
CONFIG_API_VERSION = "resource.nvidia.com/v1beta1"
GPU_CONFIG_KIND = "GpuConfig"
MIG_CONFIG_KIND = "MigDeviceConfig"
TIME_SLICING_STRATEGY = "TimeSlicing"
MPS_STRATEGY = "MPS"
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
