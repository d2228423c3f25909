"""The stack configuration's shape, as pydantic models: one class per YAML mapping.

Keys are camelCase like every Pulumi config; unknown keys are refused so a typo such as
``mixedStrategy`` fails loudly instead of silently doing nothing. Rules that need the GPU catalog
(does this size have MIG, does this layout fit) live in ``gpupools.resolve``, not here.
"""

from __future__ import annotations

import unicodedata
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic.alias_generators import to_camel

from ..catalog.chart_refs import (
    CLUSTER_AUTOSCALER,
    CLUSTER_AUTOSCALER_NAMESPACE,
    DEFAULT_EXPANDER,
    DIGITS_VERSION,
)
from ..catalog.clock import plan_date
from ..catalog.clouds import SYSTEM_POOL_COUNT
from ..catalog.cloud_registry import cloud_names, default_kubernetes_version
from ..catalog.dra_driver import AlphaGate
from ..catalog.installers import Installer, InstallerName, installer_named
from ..catalog.names import (
    CLUSTER_NAMESPACES,
    DNS1123_LABEL,
    label_key_problem,
    label_value_problem,
    nvidia_namespace_problem,
)

MigStrategy = Literal["none", "single", "mixed"]
Rotation = Literal["recreate", "surge"]
MAX_NODES_PER_POOL = 1000
# The most replicas a shared GPU (or MIG device) may be advertised as: an AKS pool's computed maxPods makes room for
# them, so a sharing edit never touches a field fixed at creation (domain/capacity.default_max_pods).
MAX_TIME_SLICING_REPLICAS = 64
MAX_MPS_REPLICAS = 48


def bounds_problem(low: int, high: int, low_name: str, high_name: str) -> str | None:
    """Why a lower bound above its upper bound is refused (autoscaler bounds in the config and the components)."""
    return f"{low_name} {low} is greater than {high_name} {high}" if low > high else None


def expander_problem(expander: str, priorities: dict[str, Any] | None) -> str | None:
    """The priority expander needs priorities, and only it reads them (cluster-autoscaler expander/priority)."""
    if expander == "priority" and not priorities:
        return (
            'expander \'priority\' needs priorities, e.g. {"10": [".*p4d.*"]} (the priority expander fails '
            "without its ConfigMap); or use least-waste"
        )
    if priorities and expander != "priority":
        return f"priorities are read only by expander 'priority', not '{expander}'"
    return None


def default_rotation(count: int) -> Rotation:
    """``surge`` for a pool with nodes (they have somewhere to go); ``recreate`` for an empty one (nothing to move)."""
    return "recreate" if count == 0 else "surge"


def _control_character(text: str) -> str | None:
    """The first control or format character in ``text`` (newline, tab, NUL, zero-width space...), escaped."""
    for char in text:
        if unicodedata.category(char) in ("Cc", "Cf"):
            return repr(char)[1:-1] if char.isascii() else f"U+{ord(char):04X}"
    return None


def _strings_in(value: Any) -> list[str]:
    """Every str directly in a field value: itself, list items, dict keys and values (nested models check
    themselves)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings_in(item)]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (*_strings_in(key), *_strings_in(item))]
    return []


class Strict(BaseModel):
    """Base for every config mapping: camelCase keys only, unknown keys rejected, no type coercion, immutable.

    ``strict``: ``count: true``, ``count: "3"`` and ``count: 2.0`` are not counts. Keys are matched by their
    camelCase alias only, so ``os_sku`` is an unknown key like any typo.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=False, frozen=True, strict=True
    )

    @field_validator("*", mode="after")
    @classmethod
    def _no_control_characters(cls, value: Any, info: ValidationInfo) -> Any:
        for text in _strings_in(value):
            found = _control_character(text)
            if found is not None:
                shown = text if len(text) <= 40 else text[:37] + "..."
                raise ValueError(
                    f"contains the control character {found} in {shown!r}; allowed: printable characters only"
                )
        return value


class SystemPool(Strict):
    """The small CPU pool that runs system pods (AKS system pool, EKS managed node group)."""

    size: str = Field(min_length=1)
    count: int = Field(default=SYSTEM_POOL_COUNT, ge=1, le=100)  # AKS system pools and EKS node groups: our bound


# catalog.chart_refs lists them (CLUSTER_AUTOSCALER_EXPANDERS); spelled out so type checkers read it, and
# tests/config/test_models.py keeps the two equal.
Expander = Literal["least-waste", "most-pods", "random", "priority"]


class ClusterAutoscalerConfig(Strict):
    """The open-source cluster autoscaler, installed by gpupools on EKS (AKS runs its own, managed one)."""

    install: bool = False
    version: str = Field(default=CLUSTER_AUTOSCALER.default_version, pattern=f"^{DIGITS_VERSION.pattern}$")
    namespace: str = CLUSTER_AUTOSCALER_NAMESPACE
    expander: Expander = DEFAULT_EXPANDER
    # Only with expander priority: the cluster-autoscaler-priority-expander ConfigMap, priority -> node group
    # name regexes (expander/priority/readme.md). Keys are whole numbers written as text ("10").
    priorities: dict[str, list[str]] = Field(default_factory=dict)
    # Unset leaves the autoscaler's defaults (0.5 each, flags.go); CPU/memory and GPU nodes respectively.
    scale_down_utilization_threshold: float | None = Field(default=None, gt=0, le=1)
    scale_down_gpu_utilization_threshold: float | None = Field(default=None, gt=0, le=1)

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, namespace: str) -> str:
        if not DNS1123_LABEL.fullmatch(namespace):
            raise ValueError(
                f"'{namespace}' is not a Kubernetes namespace name; allowed: at most 63 lowercase "
                "letters, digits and '-', starting and ending with a letter or digit"
            )
        return namespace

    @model_validator(mode="after")
    def _priorities(self) -> "ClusterAutoscalerConfig":
        problem = expander_problem(self.expander, self.priorities)
        if problem:
            raise ValueError(problem)
        return self  # keys and patterns: resolve.autoscaler_version_rule.priorities_problems


class ClusterConfig(Strict):
    """The cluster to create, or to use when ``create`` is false."""

    # Name, resource group, location and region syntax are cloud rules (catalog/names.py), checked in gpupools.resolve.
    name: str = Field(min_length=1)
    create: bool = True
    resource_group: str | None = Field(default=None, min_length=1)
    location: str | None = Field(default=None, min_length=1)
    region: str | None = Field(default=None, min_length=1)
    # Unset: filled by StackConfig with the cloud's default minor on the plan's date (default_kubernetes_version);
    # "" only when no minor is in standard support that day, which resolve.versions refuses.
    kubernetes_version: str = Field(default="", min_length=1)  # offered minors and their dates: resolve.versions
    # AKS: run a minor past community support on LTS (Premium tier + AKSLongTermSupport plan); resolve.versions.
    long_term_support: bool = False
    system_pool: SystemPool | None = None
    subnet_ids: list[str] = Field(default_factory=list)
    # aws: the VPC of subnet_ids; pulumi-eks would otherwise put the cluster security group in the default VPC.
    vpc_id: str | None = None
    autoscaler: ClusterAutoscalerConfig = Field(default_factory=ClusterAutoscalerConfig)


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

    replicas: int = Field(ge=2, le=MAX_TIME_SLICING_REPLICAS)
    rename_by_default: bool = False
    fail_requests_greater_than_one: bool = False


class Mps(Strict):
    """CUDA MPS through the device plugin: full GPUs shared by ``replicas`` clients with memory limits."""

    replicas: int = Field(ge=2, le=MAX_MPS_REPLICAS)
    rename_by_default: bool = False
    # The MPS control daemon runs privileged with hostPID (device plugin 0.20.0 chart, GPU Operator v26.7.0 asset;
    # neither sets hostIPC); the user must say they accept that.
    allow_privileged_host_pid: bool = Field(default=False, alias="allowPrivilegedHostPID")

    @model_validator(mode="before")
    @classmethod
    def _renamed_key(cls, value: Any) -> Any:
        if isinstance(value, dict) and "allowPrivilegedHostIPC" in value:
            raise ValueError(
                "'allowPrivilegedHostIPC' is renamed 'allowPrivilegedHostPID': the MPS control daemon "
                "runs privileged with hostPID, not hostIPC; set allowPrivilegedHostPID: true instead"
            )
        return value


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
    """Node count bounds for the cluster autoscaler (AKS's managed one, or the one of ``cluster.autoscaler``)."""

    min_count: int = Field(ge=0, le=MAX_NODES_PER_POOL)
    max_count: int = Field(ge=1, le=MAX_NODES_PER_POOL)

    @model_validator(mode="after")
    def _ordered(self) -> "Autoscaling":
        problem = bounds_problem(self.min_count, self.max_count, "minCount", "maxCount")
        if problem:
            raise ValueError(problem)
        return self


class GpuPoolConfig(Strict):
    """One GPU node pool (AKS agent pool or EKS managed node group)."""

    name: str = Field(min_length=1)
    size: str = Field(min_length=1)
    count: int = Field(default=1, ge=0, le=MAX_NODES_PER_POOL)
    autoscaling: Autoscaling | None = None
    mig: MigConfig | None = None
    sharing: Sharing | None = None
    # Allowed values are tables in catalog/clouds.py, so refused ones (Ubuntu2404, Bottlerocket) get a reason.
    os_sku: str | None = Field(default=None, alias="osSku", min_length=1)
    ami_type: str | None = Field(default=None, min_length=1)
    disk_size_gb: int = Field(default=256, ge=64, le=4096)
    labels: dict[str, str] = Field(default_factory=dict)
    smoke_test: bool = False
    # azure: pods per node; None computes one from the pool's slices and daemonsets (resolve/daemonsets.py).
    # AKS allows 10..250 pods per node (AKSNodeClass maxPods "Range: 10-250").
    max_pods: int | None = Field(default=None, ge=10, le=250)
    # Where and how capacity is bought. azure: zones "1".."3", a capacity reservation group, Spot.
    availability_zones: list[Literal["1", "2", "3"]] = Field(default_factory=list)
    capacity_reservation_group_id: str | None = Field(default=None, min_length=1)
    priority: Literal["Regular", "Spot"] | None = None
    eviction_policy: Literal["Delete", "Deallocate"] | None = None
    spot_max_price: float | None = None  # its values: resolve.azure_rules.spot_max_price_problem
    # aws: the node group's capacity type, an ODCR id or reservation group ARN, its own subnets, EFA.
    capacity_type: Literal["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"] | None = None
    capacity_reservation: str | None = Field(default=None, min_length=1)
    subnet_ids: list[str] = Field(default_factory=list)
    efa: bool = False
    # What the reservation (capacityReservation or capacityReservationGroupId) holds, given in the stack file as
    # `{id, instances, days}`: a reservation is billed for what it reserves, used or not (domain/cost.py), and a
    # Capacity Block for its whole length, up front. 182 days is the longest block EC2 sells.
    reserved_instances: int | None = Field(default=None, ge=1, le=MAX_NODES_PER_POOL)
    reserved_days: int | None = Field(default=None, ge=1, le=182)
    # How a change to a field fixed at creation replaces the pool (domain/rotation.py); None: by count.
    rotation: Rotation | None = None

    @model_validator(mode="before")
    @classmethod
    def _reservation_mapping(cls, value: Any) -> Any:
        """``capacityReservation: {id, instances, days}`` (or ``capacityReservationGroupId: {id, instances}``) is
        the id plus ``reservedInstances``/``reservedDays``; the plain id string stays valid."""
        if not isinstance(value, dict):
            return value
        for key, allowed in (
            ("capacityReservation", ("id", "instances", "days")),
            ("capacityReservationGroupId", ("id", "instances")),
        ):
            given = value.get(key)
            if not isinstance(given, dict):
                continue
            unknown = sorted(str(k) for k in given if k not in allowed)
            if unknown or "id" not in given:
                what = f"unknown key {unknown[0]!r}" if unknown else "no 'id'"
                raise ValueError(f"{key}: {what}; allowed: {', '.join(allowed)} (id required)")
            flat = {"reservedInstances": given.get("instances"), "reservedDays": given.get("days")}
            twice = [name for name, item in flat.items() if item is not None and name in value]
            if twice:
                raise ValueError(f"{key} and {twice[0]} both give the reserved quantity; give it once")
            value = {**value, key: given["id"], **{name: item for name, item in flat.items() if item is not None}}
        return value

    @field_validator("labels")
    @classmethod
    def _kubernetes_labels(cls, labels: dict[str, str]) -> dict[str, str]:
        bad = []
        for key, value in labels.items():
            why = label_key_problem(key) or label_value_problem(value)
            if why:
                bad.append(f"{key}={value} ({why})")
        if bad:
            raise ValueError(f"not valid Kubernetes labels: {'; '.join(bad)}")
        return labels

    @field_validator("availability_zones")  # subnet ids: resolve.aws_rules.subnet_id_problems
    @classmethod
    def _unique(cls, items: list[str]) -> list[str]:
        repeated = sorted({item for item in items if items.count(item) > 1})
        if repeated:
            raise ValueError(f"lists {', '.join(repeated)} more than once; each entry at most once")
        return items

    @property
    def reservation(self) -> str | None:
        """The reservation the pool draws from, on either cloud: an ODCR or Capacity Block id, a reservation
        group ARN, or an Azure capacity reservation group id."""
        return self.capacity_reservation or self.capacity_reservation_group_id

    @property
    def resolved_rotation(self) -> Rotation:
        """``rotation`` as given, else ``surge`` for a pool with nodes and ``recreate`` for an empty one."""
        return self.rotation or default_rotation(self.count)

    @property
    def resolved_eviction_policy(self) -> str | None:
        """Spot pools only: what AKS does with an evicted node (AKS's default is Delete)."""
        if self.priority != "Spot":
            return None
        return self.eviction_policy or "Delete"


class Metrics(Strict):
    """GPU metrics: NVIDIA's DCGM exporter on the GPU nodes, and a Prometheus Operator ServiceMonitor for it."""

    # None: the installer's default, resolved by GpuSoftware.runs_dcgm_exporter (the GPU Operator's chart
    # runs its exporter; the device plugin has none, so gpupools installs the dcgm-exporter chart only if true).
    dcgm_exporter: bool | None = None
    # Needs the Prometheus Operator's CRDs (monitoring.coreos.com/v1) in the cluster.
    service_monitor: bool = False


class GpuSoftware(Strict):
    """Which NVIDIA software exposes the GPUs to Kubernetes, and how it names MIG devices."""

    installer: InstallerName
    version: str | None = Field(default=None, min_length=1)
    mig_strategy: MigStrategy = "single"
    gfd: bool = True
    namespace: str | None = None
    # preinstalled: the node image ships driver and toolkit (AKS default images, EKS NVIDIA AMIs);
    # operator: the GPU Operator installs them (AKS pools are then created with gpuProfile.driver None).
    driver: Literal["preinstalled", "operator"] = "preinstalled"
    metrics: Metrics = Field(default_factory=Metrics)
    # installer dra-driver only: the driver's alpha feature gates the stack accepts by name (a sharing mode
    # through DRA needs its gate; see resolve.dra_rules).
    dra_alpha_gates: list[AlphaGate] = Field(default_factory=list)

    @property
    def runs_dcgm_exporter(self) -> bool:
        """A DCGM exporter runs on the GPU nodes: as ``metrics.dcgmExporter`` says, else the installer's default."""
        if self.metrics.dcgm_exporter is not None:
            return self.metrics.dcgm_exporter
        return self.chosen_installer.has_own_dcgm_exporter

    @property
    def chosen_installer(self) -> Installer:
        """The ``Installer`` object of ``installer`` (its facts and facets; never compare its name)."""
        return installer_named(self.installer)

    @property
    def manages_mig_layouts(self) -> bool:
        """The GPU Operator's MIG manager can cut GPUs: installed as the installer, or beside the DRA driver."""
        return self.chosen_installer.manages_mig_layouts

    @property
    def installs_dcgm_exporter(self) -> bool:
        """gpupools installs the dcgm-exporter chart itself: beside a chart without its own exporter."""
        return not self.chosen_installer.has_own_dcgm_exporter and self.runs_dcgm_exporter

    @model_validator(mode="after")
    def _service_monitor_needs_exporter(self) -> "GpuSoftware":
        if self.metrics.service_monitor and not self.runs_dcgm_exporter:
            raise ValueError(
                "metrics.serviceMonitor is true but no DCGM exporter runs; allowed: serviceMonitor "
                f"with metrics.dcgmExporter: true (off here with installer {self.installer})"
            )
        return self

    @field_validator("namespace")
    @classmethod
    def _own_namespace(cls, namespace: str | None) -> str | None:
        why = nvidia_namespace_problem(namespace) if namespace is not None else None
        if why:
            raise ValueError(why)
        return namespace

    @property
    def resolved_version(self) -> str:
        return self.version or self.chosen_installer.chart.default_version

    @property
    def resolved_namespace(self) -> str:
        return self.namespace or self.chosen_installer.chart.name

    @property
    def creates_namespace(self) -> bool:
        """False for namespaces every cluster already has (kube-system...): the release uses them, never creates
        them."""
        return self.resolved_namespace not in CLUSTER_NAMESPACES


class CustomSize(Strict):
    """A node size missing from the built-in catalog: its GPU model (catalog name) and GPUs per node."""

    gpu: str = Field(min_length=1)
    gpus: int = Field(ge=1, le=16)


class StackConfig(Strict):
    """Everything under the ``gpupools:`` namespace of a ``Pulumi.<stack>.yaml``."""

    cloud: Literal["azure", "aws"]
    cluster: ClusterConfig
    gpu_pools: list[GpuPoolConfig] = Field(min_length=1, max_length=50)
    gpu_software: GpuSoftware
    custom_sizes: dict[str, CustomSize] = Field(default_factory=dict)
    tags: dict[str, str] = Field(default_factory=dict)
    # The demand file the pools were sized for (gpupools fit), relative to the stack file: plan says whether the
    # pools still hold it and what the optimum needs (fit/stack_demand.py). The program ignores it. A plain path
    # (no spaces, brackets or backticks): plan echoes it into the pull request comment.
    demand: str | None = Field(default=None, max_length=1024, pattern=r"^[A-Za-z0-9._][A-Za-z0-9._/-]*$")

    @model_validator(mode="before")
    @classmethod
    def _default_kubernetes_version(cls, values: Any, info: ValidationInfo) -> Any:
        """An unset ``cluster.kubernetesVersion`` is the cloud's default minor on the plan's date (the context's
        ``day``, which ``load_stack`` passes; the clock otherwise)."""
        if not isinstance(values, dict) or not isinstance(values.get("cluster"), dict):
            return values
        if "kubernetesVersion" in values["cluster"] or values.get("cloud") not in cloud_names():
            return values
        day = (info.context or {}).get("day") or plan_date().day
        minor = default_kubernetes_version(values["cloud"], day)
        return {**values, "cluster": {**values["cluster"], "kubernetesVersion": minor}} if minor else values
