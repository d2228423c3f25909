"""ResourceSlices as NVIDIA's DRA driver publishes them, built from the attribute reference
(dra-driver-nvidia-gpu docs, reference-resourceslice-attributes.md): one slice per node under driver
``gpu.nvidia.com``, pool named after the node, a device per whole GPU (``type: gpu``, ``gpu-<i>``) or per MIG device
(``type: mig``, ``profile``, ``parentUUID``, ``gpu-<i>-mig-<profile>-<j>``), attributes as bare keys with typed values.
"""

from __future__ import annotations

from typing import Any

DRIVER = "gpu.nvidia.com"


def _attrs(**values: str) -> dict[str, dict[str, str]]:
    return {key: {"string": value} for key, value in values.items()}


def gpu_device(index: int, product: str, memory_gb: int) -> dict[str, Any]:
    uuid = f"GPU-{index:08d}-0000-0000-0000-000000000000"
    return {
        "name": f"gpu-{index}",
        "attributes": {**_attrs(type="gpu", productName=product, uuid=uuid, brand="Nvidia")},
        "capacity": {"memory": {"value": f"{memory_gb}Gi"}},
    }


def mig_device(index: int, j: int, profile: str, product: str, memory_gb: int) -> dict[str, Any]:
    parent = f"GPU-{index:08d}-0000-0000-0000-000000000000"
    return {
        "name": f"gpu-{index}-mig-{profile}-{j}",
        "attributes": _attrs(
            type="mig",
            profile=profile,
            productName=product,
            parentUUID=parent,
            uuid=f"MIG-{index:04d}{j:04d}-{profile}",
        ),
        "capacity": {"memory": {"value": f"{memory_gb}Gi"}},
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
) -> dict[str, Any]:
    """The node's ``resource.k8s.io/v1`` ResourceSlice: whole GPUs, or every MIG device of ``mig`` on each GPU."""
    devices = []
    for index in range(gpus):
        if not mig:
            devices.append(gpu_device(index, product, memory_gb))
            continue
        for profile, count in sorted(mig.items()):
            memory = (mig_memory or {}).get(profile, 1)
            devices += [mig_device(index, j, profile, product, memory) for j in range(count)]
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
