"""ResourceSlices as NVIDIA's DRA driver publishes them, built from the attribute reference
(dra-driver-nvidia-gpu docs, reference-resourceslice-attributes.md) and the driver's own names (v0.4.1
``cmd/gpu-kubelet-plugin``: ``gpu-%d`` by minor, ``deviceinfo.go``; ``gpu-%d-mig-%s-%d-%d`` with the profile made
RFC 1123 compliant without dots, its GPU-instance profile id and placement start, ``mig.go`` ToCanonicalName): one
slice per node under driver ``gpu.nvidia.com``, pool named after the node, a device per whole GPU (``type: gpu``) or
per MIG device (``type: mig``, ``profile``, ``parentUUID``, capacity ``memorySlice<i>``), attributes as bare keys with
typed values.

GPU-instance profile ids are NVML's, as the MIG user guide's profile tables list them (``nvidia-smi mig -lgip``):
on 7-slice GPUs 1g 19, 1g+me 20, 1g with double memory 15, 2g 14, 3g 9, 4g 5, 7g 0; on the A30 1g 14, 1g+me 21,
2g 5, 2g+me 6, 4g 0. Placement starts: the lowest free start, a multiple of the profile's memory slices (the
guide's placement diagrams), found by backtracking over the layout, largest profiles first.
"""

from __future__ import annotations

import re
from typing import Any

from gpupools.catalog.gpus import GPU_MODELS, GpuModel

DRIVER = "gpu.nvidia.com"
SEVEN_SLICE_IDS = {
    (1, 1, False): 19,
    (1, 1, True): 20,
    (1, 2, False): 15,
    (2, 2, False): 14,
    (3, 4, False): 9,
    (4, 4, False): 5,
    (7, 8, False): 0,
}
A30_IDS = {(1, 1, False): 14, (1, 1, True): 21, (2, 2, False): 5, (2, 2, True): 6, (4, 4, False): 0}


def rfc1123(profile: str) -> str:
    """The driver's ``toRFC1123Compliant(strings.ReplaceAll(profile, ".", ""))``: ``1g.5gb+me`` -> ``1g5gb-me``."""
    name = re.sub(r"[^a-z0-9-.]", "-", profile.replace(".", "").lower()).strip("-").rstrip(".")
    return name[:253]


def mig_name(minor: int, profile: str, gi_id: int, start: int) -> str:
    return f"gpu-{minor}-mig-{rfc1123(profile)}-{gi_id}-{start}"


def gi_profile_id(gpu: GpuModel, profile: str) -> int:
    found = gpu.profile(profile)
    assert found is not None, profile
    table = A30_IDS if gpu.memory_slices == 4 else SEVEN_SLICE_IDS
    return table[(found.compute_slices, found.memory_slices, found.media_extensions)]


def placements(gpu: GpuModel, layout: dict[str, int]) -> list[tuple[str, int, int]]:
    """(profile, start, memory slices) of each MIG device of ``layout`` on one GPU, packed as NVML allows."""
    wanted = sorted(
        (p for name, n in layout.items() for p in [gpu.profile(name)] * n if p is not None),
        key=lambda p: (-p.memory_slices, p.name),
    )
    used: list[bool] = [False] * gpu.memory_slices

    def place(i: int, chosen: list[tuple[str, int, int]]) -> list[tuple[str, int, int]] | None:
        if i == len(wanted):
            return chosen
        p = wanted[i]
        starts = [s for s in range(0, gpu.memory_slices, p.memory_slices) if s + p.memory_slices <= gpu.memory_slices]
        for start in starts[: p.max_instances]:
            span = range(start, start + p.memory_slices)
            if any(used[k] for k in span):
                continue
            for k in span:
                used[k] = True
            done = place(i + 1, [*chosen, (p.name, start, p.memory_slices)])
            if done is not None:
                return done
            for k in span:
                used[k] = False
        return None

    found = place(0, [])
    assert found is not None, f"{gpu.name}: {layout} does not fit"
    return found


def _attrs(**values: str) -> dict[str, dict[str, str]]:
    return {key: {"string": value} for key, value in values.items()}


def gpu_device(index: int, product: str, memory_gb: int) -> dict[str, Any]:
    uuid = f"GPU-{index:08d}-0000-0000-0000-000000000000"
    return {
        "name": f"gpu-{index}",
        "attributes": {**_attrs(type="gpu", productName=product, uuid=uuid, brand="Nvidia")},
        "capacity": {"memory": {"value": f"{memory_gb}Gi"}},
    }


def mig_device(
    index: int, profile: str, product: str, memory_gb: int, gi_id: int, start: int, size: int
) -> dict[str, Any]:
    """One MIG device as the driver names and describes it (``memorySlice<i>`` = 1 for each slice it holds)."""
    parent = f"GPU-{index:08d}-0000-0000-0000-000000000000"
    capacity = {"memory": {"value": f"{memory_gb}Gi"}}
    capacity.update({f"memorySlice{i}": {"value": "1"} for i in range(start, start + size)})
    return {
        "name": mig_name(index, profile, gi_id, start),
        "attributes": _attrs(
            type="mig",
            profile=profile,
            productName=product,
            parentUUID=parent,
            uuid=f"MIG-{index:04d}{start:04d}-{rfc1123(profile)}",
        ),
        "capacity": capacity,
    }


def vfio_device(index: int, product: str) -> dict[str, Any]:
    return {
        "name": f"vfio-{index}",
        "attributes": _attrs(type="vfio", productName=product, vendorID="0x10de"),
        "capacity": {"addressableMemory": {"value": "40Gi"}},
    }


def node_slice(
    node: str,
    gpus: int,
    product: str,
    memory_gb: int,
    mig: dict[str, int] | None,
    mig_memory: dict[str, int] | None = None,
    gpu: GpuModel | None = None,
) -> dict[str, Any]:
    """The node's ``resource.k8s.io/v1`` ResourceSlice: whole GPUs, or every MIG device of ``mig`` on each GPU
    (``gpu``: the model whose profile ids and placements name them; default the A100 40GB)."""
    model = gpu or GPU_MODELS["A100-40GB"]
    devices = []
    for index in range(gpus):
        if not mig:
            devices.append(gpu_device(index, product, memory_gb))
            continue
        for profile, start, size in placements(model, mig):
            memory = (mig_memory or {}).get(profile, 1)
            devices.append(mig_device(index, profile, product, memory, gi_profile_id(model, profile), start, size))
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{DRIVER}-x1"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def cel_device(device: dict[str, Any]) -> dict[str, Any]:
    """The ``device`` variable a DeviceClass selector sees: ``driver``, and attributes/capacity under the domain."""
    attributes = {key: next(iter(value.values())) for key, value in device["attributes"].items()}
    capacity = {key: value["value"] for key, value in device.get("capacity", {}).items()}
    return {"driver": DRIVER, "attributes": {DRIVER: attributes}, "capacity": {DRIVER: capacity}}
