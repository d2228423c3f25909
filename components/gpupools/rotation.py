"""How a GPU pool is replaced when a field fixed at creation changes: ``recreate`` or ``surge``.

``recreate`` keeps the pool's cloud name, so the old pool must go before its replacement can take the name:
the pool's capacity is gone until the new one is up. ``surge`` gives each *generation* of the pool its own
cloud name, the config name plus a short hash of the values the component sends for the fields listed in
``immutable_fields`` (and of the config name, so truncated names stay apart). A changed fixed field gives a
new name, so the new pool can be created first and the old one deleted once it exists; a count or label
change keeps the name and updates in place. The name is a pure function of the config: the same inputs give
the same name on every run and machine. Pure: no Pulumi, no config package (it imports this module).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import TYPE_CHECKING, Any, Literal, Mapping

from .immutable_fields import AKS_AGENT_POOL, EKS_NODE_GROUP

if TYPE_CHECKING:
    from .pools import ResolvedPool

Rotation = Literal["recreate", "surge"]
ROTATIONS: tuple[Rotation, ...] = ("recreate", "surge")

SUFFIX_LENGTH = 5
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
# The longest cloud pool name per cloud. AKS: 12 lowercase letters and digits. EKS accepts 63, but the node
# group component takes names that also fit every Kubernetes name derived from a pool (names.POOL_NAME_MAX).
CLOUD_NAME_MAX = {"azure": 12, "aws": 54}
# AKS names allow no separator; EKS names read better with one.
SEPARATOR = {"azure": "", "aws": "-"}
# Names a GPU pool can never take: the AKS system pool gpupools creates is called ``system``.
RESERVED_NAMES = {"azure": frozenset({"system"}), "aws": frozenset()}
# EKS launch template: the node group's template is one resource for the node group's whole life, so only
# whether there is one decides ``launchTemplate.id`` (its contents change in place, as new versions).
LAUNCH_TEMPLATE = "launchTemplate.id"
# A surge pool with this many GPUs gets a plan warning: its replacement needs as many again meanwhile.
SURGE_WARNING_GPUS = 16


def default_rotation(count: int) -> Rotation:
    """``surge`` for a pool with nodes (they have somewhere to go); ``recreate`` for an empty one (nothing to move)."""
    return "recreate" if count == 0 else "surge"


def generation(pool_name: str, fixed: Mapping[str, Any]) -> str:
    """``SUFFIX_LENGTH`` base-36 characters from a SHA-256 of the config name and the fixed fields (None dropped)."""
    document = json.dumps({"pool": pool_name, "fixed": {k: v for k, v in fixed.items() if v is not None}},
                          sort_keys=True, separators=(",", ":"))
    number = int.from_bytes(hashlib.sha256(document.encode()).digest()[:8], "big")
    digits = []
    for _ in range(SUFFIX_LENGTH):
        number, digit = divmod(number, len(_ALPHABET))
        digits.append(_ALPHABET[digit])
    return "".join(digits)


def cloud_pool_name(cloud: str, pool_name: str, suffix: str | None) -> str:
    """The pool's name in the cloud: the config name, or (surge) its prefix that leaves room for the suffix."""
    if suffix is None:
        return pool_name
    separator = SEPARATOR[cloud]
    prefix = pool_name[:CLOUD_NAME_MAX[cloud] - len(separator) - len(suffix)].rstrip("-")
    return f"{prefix}{separator}{suffix}"


def aks_gpu_driver(gpu_software_driver: str) -> str:
    """AKS's ``gpuProfile.driver``: ``None`` where the GPU Operator installs the driver, else AKS ``Install``s it."""
    return "None" if gpu_software_driver == "operator" else "Install"


def aks_fixed_fields(pool: ResolvedPool, gpu_software_driver: str) -> dict[str, Any]:
    """The ``AKS_AGENT_POOL`` inputs exactly as ``AksGpuPool`` sends them (wire names; unset ones None)."""
    config = pool.config
    return {
        "vmSize": pool.size.name,
        "maxPods": pool.max_pods,
        "availabilityZones": list(config.availability_zones) or None,
        "scaleSetPriority": config.priority,
        "spotMaxPrice": config.spot_max_price,
        "scaleSetEvictionPolicy": config.resolved_eviction_policy,
        "gpuInstanceProfile": pool.mig.aks_profile if pool.mig and pool.mig.applied_by == "aks" else None,
        "gpuProfile": {"driver": aks_gpu_driver(gpu_software_driver)},
    }


def eks_fixed_fields(pool: ResolvedPool, cluster_subnet_ids: list[str], default_ami_type: str) -> dict[str, Any]:
    """The ``EKS_NODE_GROUP`` inputs as ``EksGpuNodeGroup`` sends them to its managed node group.

    ``nodeRoleArn`` is the cluster's one node role for every group (None here: the same for all generations).
    Subnet ids given as outputs are hashed as their placeholders, so changing such an output keeps the name.
    """
    config = pool.config
    capacity_block = config.capacity_type == "CAPACITY_BLOCK"
    template = bool(config.capacity_reservation or capacity_block or config.efa)  # LaunchTemplateSpec.needed
    return {
        "instanceTypes": None if capacity_block else [pool.size.name],
        "capacityType": config.capacity_type,
        "amiType": config.ami_type or default_ami_type,
        "diskSize": None if template else config.disk_size_gb,
        "subnetIds": list(config.subnet_ids or cluster_subnet_ids) or None,
        "nodeRoleArn": None,
        LAUNCH_TEMPLATE: "gpupools launch template" if template else None,
    }


def with_generation(pool: ResolvedPool, gpu_software_driver: str, cluster_subnet_ids: list[str],
                    default_ami_type: str) -> ResolvedPool:
    """``pool`` with its generation when it rotates by surge (its fixed fields final: maxPods sized already)."""
    if pool.rotation != "surge":
        return pool
    if pool.cloud == "azure":
        fixed = aks_fixed_fields(pool, gpu_software_driver)
    else:
        fixed = eks_fixed_fields(pool, cluster_subnet_ids, default_ami_type)
    return dataclasses.replace(pool, generation=generation(pool.name, fixed))


def surge_warnings(pools: list[ResolvedPool]) -> list[str]:
    """What a surge costs, for pools big enough to matter: both generations' GPUs, and quota for them, meanwhile."""
    warnings = []
    for pool in pools:
        gpus = pool.gpus_per_node * pool.nodes
        if pool.rotation == "surge" and gpus >= SURGE_WARNING_GPUS:
            warnings.append(f"pool {pool.name}: rotation surge: a change to a field fixed at creation creates the new "
                            f"pool before deleting the old one, so {2 * gpus} {pool.gpu.name} GPUs ({2 * pool.nodes} "
                            f"{pool.size.name}) and their quota are needed until the old pool is gone; set rotation: "
                            "recreate to delete first instead")
    return warnings


def fixed_field_names(cloud: str) -> set[str]:
    """The wire names ``immutable_fields`` lists for the cloud: what the generation must cover."""
    return set(AKS_AGENT_POOL if cloud == "azure" else EKS_NODE_GROUP)


def name_clashes(cloud: str, names: list[tuple[int, str, str]]) -> list[tuple[int, str]]:
    """(pool index, why) per cloud name reserved or already taken; ``names``: (index, config name, cloud name)."""
    clashes: list[tuple[int, str]] = []
    taken: dict[str, tuple[int, str]] = {}
    for index, pool, cloud_name in names:
        if cloud_name in RESERVED_NAMES[cloud]:
            clashes.append((index, f"its cloud pool name '{cloud_name}' (from '{pool}') is reserved; rename the pool "
                                   "or set rotation: recreate"))
        elif cloud_name in taken:
            other_index, other = taken[cloud_name]
            clashes.append((index, f"its cloud pool name '{cloud_name}' (from '{pool}') is also the cloud name of "
                                   f"gpuPools[{other_index}] ('{other}'); rename one of them or set rotation: "
                                   "recreate on one"))
        else:
            taken[cloud_name] = (index, pool)
    return clashes
