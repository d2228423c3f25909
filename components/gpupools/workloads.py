"""Scheduling for GPU workloads (``slice_workload``): the documented import path of ``gpupools.domain.workloads``."""

from .domain.workloads import GpuWorkload, WorkloadError, find_pool, gpu_toleration, pool_node_selector, slice_workload

__all__ = ["GpuWorkload", "WorkloadError", "find_pool", "gpu_toleration", "pool_node_selector", "slice_workload"]
