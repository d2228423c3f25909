"""The device plugin's config files (``version: v1``): the MIG strategy, and time-slicing or MPS per pool.

Both charts put these files in one ConfigMap as named entries. A node picks its entry with the
``nvidia.com/device-plugin.config=<name>`` label, which every pool with ``sharing`` carries (its name is
the pool's name). Nodes without the label use the ``default`` entry (device plugin README v0.20.0,
"Shared Access to GPUs" and "Updating Per-Node Configuration With a Node Label").
"""

from __future__ import annotations

from typing import Any

import yaml

from ..catalog.labels import DEFAULT_DEVICE_PLUGIN_CONFIG
from ..domain.capacity import physical_resources
from ..domain.pools import ResolvedPool
from ..domain.stack import Stack

DEFAULT_CONFIG = DEFAULT_DEVICE_PLUGIN_CONFIG


def default_device_plugin_config(strategy: str) -> dict[str, Any]:
    """The config of nodes without sharing: only the MIG strategy, the same on every node."""
    return {"version": "v1", "flags": {"migStrategy": strategy}}


def pool_device_plugin_config(pool: ResolvedPool) -> dict[str, Any]:
    """The config of one pool: the default flags, plus its sharing over the resources it advertises.

    The shared resources are the pool's physical ones (``capacity.physical_resources``): ``nvidia.com/gpu``
    for whole GPUs and under ``single``, one ``nvidia.com/mig-<profile>`` per profile under ``mixed``.
    """
    config = default_device_plugin_config(pool.mig_strategy)
    sharing = pool.sharing
    if sharing is None:
        return config
    resources = list(physical_resources(pool))
    if sharing.time_slicing is not None:
        slicing = sharing.time_slicing
        config["sharing"] = {
            "timeSlicing": {
                "renameByDefault": slicing.rename_by_default,
                "failRequestsGreaterThanOne": slicing.fail_requests_greater_than_one,
                "resources": [{"name": name, "replicas": slicing.replicas} for name in resources],
            }
        }
    else:
        assert sharing.mps is not None  # Sharing holds exactly one mode
        config["sharing"] = {
            "mps": {
                "renameByDefault": sharing.mps.rename_by_default,
                "resources": [{"name": name, "replicas": sharing.mps.replicas} for name in resources],
            }
        }
    return config


def sharing_pools(stack: Stack) -> list[ResolvedPool]:
    """Pools that select their own config by node label; without any, no config file is needed."""
    return [pool for pool in stack.pools if pool.device_plugin_config is not None]


def device_plugin_configs(stack: Stack) -> dict[str, str]:
    """Config name -> YAML text: ``default`` and one entry per sharing pool, named by its node label."""
    configs = {DEFAULT_CONFIG: _render(default_device_plugin_config(stack.mig_strategy))}
    for pool in stack.pools:
        # The sharing pools (sharing_pools). Pool names are unique and config validation refuses a sharing pool
        # named "default".
        if pool.device_plugin_config is not None:
            configs[pool.device_plugin_config] = _render(pool_device_plugin_config(pool))
    return configs


def _render(config: dict[str, Any]) -> str:
    return yaml.safe_dump(config, sort_keys=False)
