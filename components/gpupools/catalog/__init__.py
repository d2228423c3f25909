"""The facts: GPU models, their MIG profiles and layouts, and the node sizes that carry them."""

from .gpus import GPU_MODELS, GpuModel, MigProfile, gpu_model
from .instances import CLOUDS, INSTANCE_SIZES, InstanceSize, cloud_of_size_name, resolve_size, sizes_for

__all__ = [
    "CLOUDS",
    "GPU_MODELS",
    "INSTANCE_SIZES",
    "GpuModel",
    "InstanceSize",
    "MigProfile",
    "cloud_of_size_name",
    "gpu_model",
    "resolve_size",
    "sizes_for",
]
