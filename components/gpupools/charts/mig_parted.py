"""The MIG manager's mig-parted config, needed only when a pool uses a layout NVIDIA does not name.

The MIG manager applies the layout named by a node's ``nvidia.com/mig.config`` label. By default it
generates a config of NVIDIA's layouts from each node's hardware; a custom config replaces that one
entirely (GPU Operator v26.7.0 values.yaml, ``migManager.config.name``). So the custom config must hold
every layout a node label can reference: ``all-disabled`` (the operator's default label), each NVIDIA
layout an operator-managed pool uses, and each custom layout (a mix on every GPU, or a per-GPU layout as one
entry per group of device indexes). Every entry is limited with
``device-filter`` to the pool's GPU PCI ids, as NVIDIA's ``default-mig-parted-config`` does.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..domain.node_layout import GpuGroup, NodeLayout
from ..domain.pools import ResolvedPool
from ..domain.stack import Stack

MIG_PARTED_CONFIGMAP = "gpupools-mig-parted-config"
CONFIG_KEY = "config.yaml"  # the key a custom MIG manager ConfigMap must use
ALL_DISABLED = "all-disabled"


def operator_mig_pools(stack: Stack) -> list[ResolvedPool]:
    """Pools whose MIG layout the GPU Operator's MIG manager applies (not AKS at pool creation)."""
    return [pool for pool in stack.pools if pool.mig is not None and pool.mig.applied_by == "operator"]


def mig_parted_config(stack: Stack) -> dict[str, Any] | None:
    """A complete mig-parted config when some operator-managed pool has a custom layout, else None."""
    pools = operator_mig_pools(stack)
    if not any(pool.mig.custom for pool in pools if pool.mig is not None):
        return None
    configs: dict[str, list[dict[str, Any]]] = {ALL_DISABLED: [{"devices": "all", "mig-enabled": False}]}
    for pool in pools:
        assert pool.mig is not None
        entries = configs.setdefault(pool.mig.layout_name, [])
        for entry in node_entries(pool.mig.node, list(pool.gpu.pci_device_ids)):
            if entry not in entries:  # two pools of the same GPU and layout need it once
                entries.append(entry)
    return {"version": "v1", "mig-configs": configs}


def node_entries(node: NodeLayout, device_filter: list[str]) -> list[dict[str, Any]]:
    """mig-parted's entries for one node: ``devices: all`` when every GPU is cut alike, else one entry per group
    with its GPU indexes (``devices: [0, 1]``), ``mig-enabled: false`` for GPUs left whole (mig-parted's
    ``examples/config.yaml``, ``custom-config``)."""
    if node.is_uniform:
        indexed: tuple[tuple[Any, GpuGroup], ...] = (("all", node.groups[0]),)
    else:
        indexed = tuple((list(indexes), group) for indexes, group in node.indexed())
    entries: list[dict[str, Any]] = []
    for devices, group in indexed:
        entry: dict[str, Any] = {"device-filter": device_filter, "devices": devices, "mig-enabled": not group.whole}
        if not group.whole:
            entry["mig-devices"] = group.devices
        entries.append(entry)
    return entries


def mig_parted_configmap_data(stack: Stack) -> dict[str, str] | None:
    """The custom config as ConfigMap data (``config.yaml`` -> YAML text), or None when not needed."""
    config = mig_parted_config(stack)
    if config is None:
        return None
    return {CONFIG_KEY: yaml.safe_dump(config, sort_keys=False)}
