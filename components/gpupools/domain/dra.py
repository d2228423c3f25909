"""The DRA view of a stack: the devices NVIDIA's DRA driver publishes per node, and the DeviceClasses and
ResourceClaimTemplates that let a workload ask for one kind of them.

The driver publishes one device per whole GPU (``type: gpu``) or per MIG device (``type: mig`` with its
``profile``), under the driver ``gpu.nvidia.com`` (reference-resourceslice-attributes.md). A MIG-capable GPU with
MIG off is published whole ("the driver falls back to full-GPU allocation", mig.md).

Why selectors name no pool: a DeviceClass selector sees device attributes only, and the driver publishes no
attribute that says which node pool a device is on (its ``pool`` is the node name). So a class picks its kind
(type, and profile for MIG) exactly; what pins a claim to a pool is the pod's node selector
(``workloads.pool_node_selector``), because the scheduler allocates node-local devices on the node it picks.

``extendedResourceName`` (``nvidia.com/mig-<profile>``, the device plugin's names) is set from Kubernetes 1.36, where
``DRAExtendedResource`` is beta and on by default (KEP-5004), and only when one class claims the name: "only one
DeviceClass can effectively map to a given extendedResourceName" (driver demo). Whole GPUs keep the chart's own
``gpu.nvidia.com`` class, which already maps ``nvidia.com/gpu``.

Sharing (time-slicing, MPS) is no extra device under DRA: it is an opaque config on the claim, which the driver reads
(``GpuConfig`` for a whole GPU, ``MigDeviceConfig`` for a MIG device, driver ``gpu.nvidia.com``; time-slicing guide,
MPS guide). A claim *template* gives each pod a claim of its own, so pods never share through one; pods share a
device by referencing one ``ResourceClaim`` (the driver's gpu-test3 demo). So a sharing pool gets one ResourceClaim
per device it publishes (per node times its planned nodes), and ``replicas`` means the pods meant to reference each
claim: the plan and ``slice_workload`` say so; Kubernetes itself caps a claim at 256 pods (``reservedFor``). MPS
splits each device as the device plugin's MPS does: each client gets ``1/replicas`` of the threads and memory.

Why the claim templates live in the gpuSoftware namespace: a ResourceClaimTemplate is namespaced and a pod can only
reference one in its own namespace, so no single place serves every workload. The release's namespace exists before
the templates (the release creates it, or it is one every cluster has), gpupools' smoke tests run there, and it is
never ``default`` (refused for gpuSoftware). A workload in another namespace creates the template
``slice_workload`` returns in its own namespace; the DeviceClasses it names are cluster-scoped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog.dra_driver import (
    CONFIG_API_VERSION,
    DRA_DRIVER_NAME,
    EXTENDED_RESOURCE_MINOR,
    GPU_CONFIG_KIND,
    GPU_TYPE,
    MIG_CONFIG_KIND,
    MIG_TYPE,
    MPS_STRATEGY,
    TIME_SLICING_STRATEGY,
    device_token,
)
from ..catalog.labels import mig_resource_name
from .pools import ResolvedPool
from .stack import Stack

API_VERSION = "resource.k8s.io/v1"
CLASS_DOMAIN = "gpupools.io"
REQUEST = "slice"
SAME_GPU = f"{DRA_DRIVER_NAME}/parentUUID"  # mig.md: "Request multiple MIG devices from the same GPU"


@dataclass(frozen=True)
class DraSharing:
    """How pods share one device of a pool: the driver's strategy, and the pods meant to reference one claim."""

    strategy: str  # TimeSlicing or MPS, as the driver's GpuSharing spells it
    replicas: int

    def parameters(self, kind: str, memory_gb: int) -> dict[str, Any]:
        """The opaque parameters the driver decodes strictly (no key it does not know)."""
        if kind == MIG_TYPE and self.strategy != MPS_STRATEGY:
            # resolve.dra_rules refuses it: "has no effect on hardware" (time-slicing guide)
            raise ValueError("the DRA driver cannot time-slice a MIG device")
        sharing: dict[str, Any] = {"strategy": self.strategy}
        if self.strategy == TIME_SLICING_STRATEGY:
            sharing["timeSlicingConfig"] = {"interval": "Default"}
        else:
            sharing["mpsConfig"] = {
                "defaultActiveThreadPercentage": 100 // self.replicas,
                "defaultPinnedDeviceMemoryLimit": f"{memory_gb * 1024 // self.replicas}Mi",
            }
        config_kind = GPU_CONFIG_KIND if kind == GPU_TYPE else MIG_CONFIG_KIND
        return {"apiVersion": CONFIG_API_VERSION, "kind": config_kind, "sharing": sharing}

    def to_json(self) -> dict[str, Any]:
        return {"strategy": self.strategy, "podsPerClaim": self.replicas}


@dataclass(frozen=True)
class DraDevice:
    """One kind of device the driver publishes on each node of a pool: how many, and each one's memory."""

    kind: str  # the driver's ``type`` attribute: gpu or mig
    profile: str | None
    per_node: int
    per_gpu: int
    memory_gb: int
    sharing: DraSharing | None = None

    @property
    def token(self) -> str:
        """``gpu`` or ``mig-1g.5gb`` (``+`` is no DNS character: ``1g.5gb+me`` -> ``mig-1g.5gb.me``)."""
        return device_token(self.profile)

    def to_json(self) -> dict[str, Any]:
        found = {"kind": self.kind, "profile": self.profile, "perNode": self.per_node, "memoryGB": self.memory_gb}
        if self.sharing is not None:
            found["sharing"] = self.sharing.to_json()
        return found


def pool_sharing(pool: ResolvedPool) -> DraSharing | None:
    """The pool's ``sharing`` as the driver's strategy; None without sharing."""
    sharing = pool.sharing
    if sharing is None:
        return None
    if sharing.mps is not None:
        return DraSharing(MPS_STRATEGY, sharing.mps.replicas)
    assert sharing.time_slicing is not None  # config.models.Sharing: exactly one mode
    return DraSharing(TIME_SLICING_STRATEGY, sharing.time_slicing.replicas)


def published_devices(pool: ResolvedPool) -> list[DraDevice]:
    """Per node: the whole GPUs, or each MIG profile's devices (and the GPUs a per-GPU layout leaves whole), as the
    driver's ResourceSlice lists them."""
    sharing = pool_sharing(pool)
    if pool.mig is None:
        return [DraDevice(GPU_TYPE, None, pool.gpus_per_node, 1, pool.gpu.memory_gb, sharing)]
    node = pool.mig.node
    devices = [
        DraDevice(MIG_TYPE, name, count, node.most_per_gpu(name), _profile_memory_gb(pool, name), sharing)
        for name, count in node.mig_devices.items()
    ]
    if node.whole_gpus:  # a GPU the MIG manager leaves whole is published as a gpu device
        devices.append(DraDevice(GPU_TYPE, None, node.whole_gpus, 1, pool.gpu.memory_gb, sharing))
    return devices


def _profile_memory_gb(pool: ResolvedPool, name: str) -> int:
    """A resolved pool's profiles are its GPU's (the MIG rules refuse others): a stray one is a bug, said so."""
    profile = pool.gpu.profile(name)
    if profile is None:
        raise ValueError(f"pool {pool.name}: {name} is not a MIG profile of {pool.gpu.name}")
    return profile.memory_gb


def selector(device: DraDevice) -> str:
    """The CEL expression that matches exactly this kind of device of NVIDIA's driver."""
    attrs = f"device.attributes['{DRA_DRIVER_NAME}']"
    expression = f"device.driver == '{DRA_DRIVER_NAME}' && {attrs}.type == '{device.kind}'"
    if device.profile is not None:
        expression += f" && {attrs}.profile == '{device.profile}'"
    return expression


@dataclass(frozen=True)
class DraClass:
    """A pool's DeviceClass and ResourceClaimTemplate for one device kind."""

    pool: str
    device: DraDevice
    extended_resource_name: str | None
    namespace: str  # of the claim template: the gpuSoftware namespace (module docstring)
    nodes: int = 0  # the pool's planned nodes: a sharing pool gets a shared claim per device on each

    @property
    def shared_claim_count(self) -> int:
        """How many shared ResourceClaims a sharing pool gets (one per device on its planned nodes); else 0."""
        return self.device.per_node * self.nodes if self.device.sharing is not None else 0

    def shared_claim_name(self, index: int) -> str:
        return f"{self.template_name}-shared-{index}"

    def config(self) -> list[dict[str, Any]]:
        """The claim's ``devices.config``: the sharing settings for the driver, or none."""
        if self.device.sharing is None:
            return []
        parameters = self.device.sharing.parameters(self.device.kind, self.device.memory_gb)
        return [{"requests": [REQUEST], "opaque": {"driver": DRA_DRIVER_NAME, "parameters": parameters}}]

    def shared_claim(self, index: int) -> dict[str, Any]:
        """The ``index``-th ResourceClaim that ``replicas`` pods of a sharing pool reference by name."""
        devices: dict[str, Any] = {"requests": [{"name": REQUEST, "exactly": {"deviceClassName": self.name}}]}
        devices["config"] = self.config()
        return {
            "apiVersion": API_VERSION,
            "kind": "ResourceClaim",
            "metadata": {"name": self.shared_claim_name(index), "namespace": self.namespace},
            "spec": {"devices": devices},
        }

    @property
    def name(self) -> str:
        return f"{self.pool}-{self.device.token}.{CLASS_DOMAIN}"

    @property
    def template_name(self) -> str:
        return f"{self.pool}-{self.device.token}"

    def device_class(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"selectors": [{"cel": {"expression": selector(self.device)}}]}
        if self.extended_resource_name:
            spec["extendedResourceName"] = self.extended_resource_name
        return {"apiVersion": API_VERSION, "kind": "DeviceClass", "metadata": {"name": self.name}, "spec": spec}

    def to_json(self) -> dict[str, Any]:
        """What a stack output says of this class: the names a workload references."""
        found = {
            "kind": self.device.kind,
            "profile": self.device.profile,
            "deviceClass": self.name,
            "claimTemplate": self.template_name,
            "namespace": self.namespace,
            "extendedResourceName": self.extended_resource_name,
        }
        if self.device.sharing is not None:
            found["sharedClaims"] = [self.shared_claim_name(i) for i in range(self.shared_claim_count)]
            found["podsPerClaim"] = self.device.sharing.replicas
        return found

    def claim_template(self, count: int = 1, same_gpu: bool = False, name: str | None = None) -> dict[str, Any]:
        """``count`` devices of this kind in one claim; ``same_gpu``: all on one physical GPU (MIG only)."""
        exactly: dict[str, Any] = {"deviceClassName": self.name}
        if count != 1:
            exactly["allocationMode"] = "ExactCount"
            exactly["count"] = count
        devices: dict[str, Any] = {"requests": [{"name": REQUEST, "exactly": exactly}]}
        if same_gpu:
            devices["constraints"] = [{"requests": [REQUEST], "matchAttribute": SAME_GPU}]
        if self.device.sharing is not None:
            devices["config"] = self.config()  # the containers of one pod share its claim with these settings
        return {
            "apiVersion": API_VERSION,
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": name or self.template_name, "namespace": self.namespace},
            "spec": {"spec": {"devices": devices}},
        }


def dra_classes(stack: Stack) -> list[DraClass]:
    """Every pool's classes, one per device kind it publishes; empty unless the installer is the DRA driver."""
    if not stack.config.gpu_software.chosen_installer.uses_dra:
        return []
    minor = int(stack.config.cluster.kubernetes_version.split(".")[1])
    pairs = [(pool, device) for pool in stack.pools for device in published_devices(pool)]
    names = [mig_resource_name(d.profile) for _, d in pairs if d.profile is not None]
    classes = []
    for pool, device in pairs:
        extended = None
        if device.profile is not None and minor >= EXTENDED_RESOURCE_MINOR:
            candidate = mig_resource_name(device.profile)
            extended = candidate if names.count(candidate) == 1 else None
        namespace = stack.config.gpu_software.resolved_namespace
        classes.append(DraClass(pool.name, device, extended, namespace, pool.nodes))
    return classes


def pool_classes(stack: Stack, pool: str) -> list[DraClass]:
    return [cls for cls in dra_classes(stack) if cls.pool == pool]


def classes_by_pool(stack: Stack) -> dict[str, list[dict[str, Any]]]:
    """Per pool, the classes and claim templates a workload references (a stack output); empty unless DRA."""
    found: dict[str, list[dict[str, Any]]] = {}
    for cls in dra_classes(stack):
        found.setdefault(cls.pool, []).append(cls.to_json())
    return found


def published_by_pool(stack: Stack) -> dict[str, list[DraDevice]]:
    """Per pool, the devices the driver publishes on each node; empty unless the installer is the DRA driver."""
    if not stack.config.gpu_software.chosen_installer.uses_dra:
        return {}
    return {pool.name: published_devices(pool) for pool in stack.pools}
