"""The stack configuration's shape, as pydantic models: one class per YAML mapping.

Keys are camelCase like every Pulumi config; unknown keys are refused so a typo such as
``mixedStrategy`` fails loudly instead of silently doing nothing. Rules that need the GPU catalog
(does this size have MIG, does this layout fit) live in ``rules.py``, not here.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from ..charts.refs import DEVICE_PLUGIN, GPU_OPERATOR
from .names import LABEL_KEY, LABEL_VALUE

Installer = Literal["device-plugin", "gpu-operator"]
MigStrategy = Literal["none", "single", "mixed"]

DEFAULT_VERSIONS: dict[str, str] = {"device-plugin": DEVICE_PLUGIN.default_version, "gpu-operator": GPU_OPERATOR.default_version}
DEFAULT_NAMESPACES: dict[str, str] = {"device-plugin": DEVICE_PLUGIN.name, "gpu-operator": GPU_OPERATOR.name}
# Chart versions as the Helm repositories publish them: the device plugin without a "v", the operator with one.
PINNED_VERSION = {"device-plugin": re.compile(r"^\d+\.\d+\.\d+$"), "gpu-operator": re.compile(r"^v\d+\.\d+\.\d+$")}
MAX_NODES_PER_POOL = 1000


class Strict(BaseModel):
    """Base for every config mapping: camelCase keys, unknown keys rejected, immutable once read."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True)


class SystemPool(Strict):
    """The small CPU pool that runs system pods (AKS system pool, EKS managed node group)."""

    size: str = Field(min_length=1)
    count: int = Field(default=2, ge=1, le=100)


class ClusterConfig(Strict):
    """The cluster to create, or to use when ``create`` is false."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$")
    create: bool = True
    resource_group: str | None = Field(default=None, min_length=1, max_length=90)
    location: str | None = Field(default=None, min_length=1)
    region: str | None = Field(default=None, pattern=r"^[a-z]{2}(-[a-z]+)+-\d$")
    kubernetes_version: str = Field(default="1.33", pattern=r"^1\.\d{2}$")
    system_pool: SystemPool | None = None
    subnet_ids: list[str] = Field(default_factory=list)
    # aws: the VPC of subnet_ids; pulumi-eks would otherwise put the cluster security group in the default VPC.
    vpc_id: str | None = None


class MigConfig(Strict):
    """How each GPU of a pool is cut: one profile (``MIG1g`` or ``1g.5gb``) or a layout (named or a per-GPU mix)."""

    profile: str | None = Field(default=None, min_length=1)
    layout: str | dict[str, int] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "MigConfig":
        if (self.profile is None) == (self.layout is None):
            raise ValueError("set exactly one of 'profile' or 'layout'")
        return self

    @field_validator("layout")
    @classmethod
    def _positive_counts(cls, layout: str | dict[str, int] | None) -> str | dict[str, int] | None:
        if isinstance(layout, dict):
            if not layout:
                raise ValueError("a layout mix needs at least one profile, e.g. {1g.5gb: 7}")
            bad = [f"{name}: {count}" for name, count in layout.items() if count < 1]
            if bad:
                raise ValueError(f"profile counts must be at least 1, got {', '.join(bad)}")
        return layout


class TimeSlicing(Strict):
    """Device plugin time-slicing: each GPU (or MIG device) is advertised ``replicas`` times."""

    replicas: int = Field(ge=2, le=64)
    rename_by_default: bool = False
    fail_requests_greater_than_one: bool = False


class Mps(Strict):
    """CUDA MPS through the device plugin: full GPUs shared by ``replicas`` clients with memory limits."""

    replicas: int = Field(ge=2, le=48)
    rename_by_default: bool = False
    # The MPS control daemon runs privileged with hostIPC; the user must say they accept that.
    allow_privileged_host_ipc: bool = Field(default=False, alias="allowPrivilegedHostIPC")


class Sharing(Strict):
    """Oversubscription of a pool's GPUs or MIG devices: time-slicing or MPS, never both."""

    time_slicing: TimeSlicing | None = None
    mps: Mps | None = None

    @model_validator(mode="after")
    def _one_mode(self) -> "Sharing":
        if (self.time_slicing is None) == (self.mps is None):
            raise ValueError("set exactly one of 'timeSlicing' or 'mps' (they are mutually exclusive)")
        return self


class Autoscaling(Strict):
    """Node count bounds for the cloud's autoscaler (not allowed on AKS MIG pools)."""

    min_count: int = Field(ge=0, le=MAX_NODES_PER_POOL)
    max_count: int = Field(ge=1, le=MAX_NODES_PER_POOL)

    @model_validator(mode="after")
    def _ordered(self) -> "Autoscaling":
        if self.min_count > self.max_count:
            raise ValueError(f"minCount {self.min_count} is greater than maxCount {self.max_count}")
        return self


class GpuPoolConfig(Strict):
    """One GPU node pool (AKS agent pool or EKS managed node group)."""

    name: str = Field(min_length=1)
    size: str = Field(min_length=1)
    count: int = Field(default=1, ge=0, le=MAX_NODES_PER_POOL)
    autoscaling: Autoscaling | None = None
    mig: MigConfig | None = None
    sharing: Sharing | None = None
    os_sku: Literal["Ubuntu", "Ubuntu2204", "Ubuntu2404", "AzureLinux"] | None = Field(default=None, alias="osSku")
    ami_type: Literal["AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA", "AL2023_x86_64_STANDARD"] | None = None
    disk_size_gb: int = Field(default=256, ge=64, le=4096)
    labels: dict[str, str] = Field(default_factory=dict)
    smoke_test: bool = False
    # azure: pods per node; None computes one from the pool's slices and daemonsets (see rules).
    max_pods: int | None = None
    # Where and how capacity is bought. azure: zones "1".."3", a capacity reservation group, Spot.
    availability_zones: list[str] = Field(default_factory=list)
    capacity_reservation_group_id: str | None = None
    priority: Literal["Regular", "Spot"] | None = None
    eviction_policy: Literal["Delete", "Deallocate"] | None = None
    spot_max_price: float | None = None
    # aws: the node group's capacity type, an ODCR id or reservation group ARN, its own subnets, EFA.
    capacity_type: Literal["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"] | None = None
    capacity_reservation: str | None = None
    subnet_ids: list[str] = Field(default_factory=list)
    efa: bool = False

    @field_validator("labels")
    @classmethod
    def _kubernetes_labels(cls, labels: dict[str, str]) -> dict[str, str]:
        bad = [f"{k}={v}" for k, v in labels.items() if not LABEL_KEY.fullmatch(k) or not LABEL_VALUE.fullmatch(v)]
        if bad:
            raise ValueError(f"not valid Kubernetes labels: {', '.join(bad)}")
        return labels


class GpuSoftware(Strict):
    """Which NVIDIA software exposes the GPUs to Kubernetes, and how it names MIG devices."""

    installer: Installer
    version: str | None = None
    mig_strategy: MigStrategy = "single"
    gfd: bool = True
    namespace: str | None = Field(default=None, pattern=r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
    # preinstalled: the node image ships driver and toolkit (AKS default images, EKS NVIDIA AMIs);
    # operator: the GPU Operator installs them (AKS pools are then created with gpuProfile.driver None).
    driver: Literal["preinstalled", "operator"] = "preinstalled"

    @field_validator("namespace")
    @classmethod
    def _own_namespace(cls, namespace: str | None) -> str | None:
        if namespace == "default":
            raise ValueError("namespace 'default' is refused: the NVIDIA charts want their own namespace")
        return namespace

    @property
    def resolved_version(self) -> str:
        return self.version or DEFAULT_VERSIONS[self.installer]

    @property
    def resolved_namespace(self) -> str:
        return self.namespace or DEFAULT_NAMESPACES[self.installer]


class CustomSize(Strict):
    """A node size missing from the built-in catalog: its GPU model (catalog name) and GPUs per node."""

    gpu: str
    gpus: int = Field(ge=1, le=16)


class StackConfig(Strict):
    """Everything under the ``gpupools:`` namespace of a ``Pulumi.<stack>.yaml``."""

    cloud: Literal["azure", "aws"]
    cluster: ClusterConfig
    gpu_pools: list[GpuPoolConfig] = Field(min_length=1, max_length=50)
    gpu_software: GpuSoftware
    custom_sizes: dict[str, CustomSize] = Field(default_factory=dict)
    tags: dict[str, str] = Field(default_factory=dict)
