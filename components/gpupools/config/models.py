"""The stack configuration's shape, as pydantic models: one class per YAML mapping.

Keys are camelCase like every Pulumi config; unknown keys are refused so a typo such as
``mixedStrategy`` fails loudly instead of silently doing nothing. Rules that need the GPU catalog
(does this size have MIG, does this layout fit) live in ``gpupools.resolve``, not here.

Each field's ``description`` is the one text of the stack file's JSON Schema (``config.schema``) and of the
configuration reference page (``gpupools.reference_docs``). The shared base and bounds are in ``base``, the cluster's
models in ``cluster_models``, a pool's in ``pool_models``; every name stays importable from here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ..catalog.clock import plan_date
from ..catalog.cloud_registry import cloud_names, default_kubernetes_version
from ..catalog.dra_driver import AlphaGate
from ..catalog.installers import Installer, InstallerName, installer_named
from ..catalog.names import CLUSTER_NAMESPACES, STACK_REFERENCE_PATTERN, nvidia_namespace_problem
from .base import (
    MAX_MPS_REPLICAS,
    MAX_NODES_PER_POOL,
    MAX_TIME_SLICING_REPLICAS,
    MigStrategy,
    Rotation,
    Strict,
    bounds_problem,
    default_rotation,
    expander_problem,
)
from .cluster_models import ClusterAutoscalerConfig, ClusterConfig, Expander, KarpenterConfig, SystemPool
from .pool_models import Autoscaling, GpuPoolConfig, KarpenterPoolConfig, MigConfig, Mps, Sharing, TimeSlicing

__all__ = [
    "MAX_MPS_REPLICAS",
    "MAX_NODES_PER_POOL",
    "MAX_TIME_SLICING_REPLICAS",
    "Autoscaling",
    "ClusterAutoscalerConfig",
    "ClusterConfig",
    "CustomSize",
    "Expander",
    "GpuPoolConfig",
    "GpuSoftware",
    "KarpenterConfig",
    "KarpenterPoolConfig",
    "Metrics",
    "MigConfig",
    "MigStrategy",
    "Mps",
    "Rotation",
    "Sharing",
    "StackConfig",
    "Strict",
    "SystemPool",
    "TimeSlicing",
    "bounds_problem",
    "default_rotation",
    "expander_problem",
]


class Metrics(Strict):
    """GPU metrics: NVIDIA's DCGM exporter on the GPU nodes, and a Prometheus Operator ServiceMonitor for it."""

    # None: the installer's default, resolved by GpuSoftware.runs_dcgm_exporter (the GPU Operator's chart
    # runs its exporter; the device plugin has none, so gpupools installs the dcgm-exporter chart only if true).
    dcgm_exporter: bool | None = Field(
        default=None,
        description="Run NVIDIA's DCGM exporter on the GPU nodes (port 9400, `/metrics`). Default: what the installer "
        "does (on with `gpu-operator`, off with `device-plugin`, whose chart has none; `true` there installs the "
        "`dcgm-exporter` chart).",
    )
    # Needs the Prometheus Operator's CRDs (monitoring.coreos.com/v1) in the cluster.
    service_monitor: bool = Field(
        default=False,
        description="Create a Prometheus Operator `ServiceMonitor` for the exporter; needs the Prometheus Operator "
        "CRDs (`monitoring.coreos.com/v1`) and an exporter.",
    )


class GpuSoftware(Strict):
    """Which NVIDIA software exposes the GPUs to Kubernetes, and how it names MIG devices."""

    installer: InstallerName = Field(
        description="The NVIDIA software: `device-plugin`, `gpu-operator` or `dra-driver` (a preview: GPUs through "
        "Kubernetes Dynamic Resource Allocation, Kubernetes 1.34 or later)."
    )
    version: str | None = Field(
        default=None,
        min_length=1,
        description="Exact chart version (the device plugin's without `v`, the operator's with `v`); `latest`, `\"\"` "
        "and ranges are refused. Default: the catalog's pinned version of the installer's chart.",
    )
    mig_strategy: MigStrategy = Field(
        default="single",
        description="`none` (whole GPUs), `single` (MIG devices as `nvidia.com/gpu`), `mixed` "
        "(`nvidia.com/mig-<profile>`).",
    )
    gfd: bool = Field(default=True, description="Run GPU feature discovery (node labels describing the GPUs).")
    namespace: str | None = Field(
        default=None,
        description="Namespace of the release, default the chart's name; `default` is refused, and `kube-system` "
        "and other namespaces every cluster has are used, never created.",
    )
    # operator: AKS pools are then created with gpuProfile.driver None.
    driver: Literal["preinstalled", "operator"] = Field(
        default="preinstalled",
        description="`preinstalled`: the node image's driver and toolkit (AKS images, EKS NVIDIA AMIs); with it the "
        "GPU Operator's CDI is turned off (`cdi.enabled: false`: v26.x switches the device plugin to CDI modes only "
        "the operator's own toolkit configures, NVIDIA/gpu-operator#1900). `operator`: the GPU Operator installs "
        "them (`gpu-operator` on azure only: it has no driver container for Amazon Linux).",
    )
    metrics: Metrics = Field(default_factory=Metrics, description="GPU metrics.")
    # A sharing mode through DRA needs its gate; see resolve.dra_rules.
    dra_alpha_gates: list[AlphaGate] = Field(
        default_factory=list,
        description="`dra-driver` only: the driver's alpha feature gates you accept by name; a sharing pool needs "
        "its gate (`TimeSlicingSettings` for time-slicing, `MPSSupport` for MPS).",
    )
    install: bool = Field(
        default=True,
        description="`false` on an existing cluster whose owner already runs this installer with these settings: "
        "the stack installs no chart, and its plan still checks capacity and placement against them (a warning "
        "says so); refused when `create` is true.",
    )

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

    gpu: str = Field(min_length=1, description="The GPU model, by its catalog name.")
    gpus: int = Field(ge=1, le=16, description="GPUs per node.")


class StackConfig(Strict):
    """Everything under the `gpupools:` namespace of a `Pulumi.<stack>.yaml`."""

    cloud: Literal["azure", "aws"] = Field(description="The cloud: `azure` (AKS) or `aws` (EKS).")
    cluster: ClusterConfig = Field(description="The cluster to create, or the existing one to add pools to.")
    gpu_pools: list[GpuPoolConfig] = Field(min_length=1, max_length=50, description="The GPU node pools.")
    gpu_software: GpuSoftware = Field(description="The NVIDIA software that exposes the GPUs to Kubernetes.")
    custom_sizes: dict[str, CustomSize] = Field(
        default_factory=dict,
        description="Sizes missing from the catalog (redefining a catalog size is refused), e.g. "
        "`{Standard_ND40rs_v2: {gpu: V100-16GB, gpus: 8}}`. Names are spelled as the clouds spell them, in ASCII: "
        "`Standard_` and letters, digits, `_`, `-` on Azure; `<family>.<size>` in lowercase letters, digits and `-` "
        "on AWS.",
    )
    tags: dict[str, str] = Field(
        default_factory=dict,
        description="Cloud tags for every resource that takes them. Azure: at most 50, keys up to 512 characters "
        "without `<>%&\\?/` and not starting with `microsoft`, `azure` or `windows`, values up to 256. AWS: at most "
        "50, keys up to 128 not starting with `aws:`, values up to 256.",
    )
    stack_references: list[Annotated[str, Field(pattern=STACK_REFERENCE_PATTERN)]] = Field(
        default_factory=list,
        max_length=50,
        description="The stacks whose outputs this stack's values come from (what it reads through a Pulumi "
        "`StackReference`, or copies, such as a platform stack's `subnetIds`): `<stack>`, `<project>/<stack>` or "
        "`<org>/<project>/<stack>`. `gpupools stack-order` and the deploy workflow deploy a stack of this "
        "repository (`Pulumi.<stack>.yaml`, the name's last part) before every stack that names it; a cycle is "
        "refused. The program ignores it.",
    )
    demand: str | None = Field(
        default=None,
        max_length=1024,
        pattern=r"^[A-Za-z0-9._][A-Za-z0-9._/-]*$",
        description="The demand file the pools were sized for (`gpupools fit`), relative to the stack file and "
        "inside the project folder (`--demand-outside-project` to read one outside it): `check` says whether the "
        "pools still hold it, `plan` also how many GPUs the optimum needs. The program ignores it. A plain path "
        "(letters, digits, `.`, `_`, `/`, `-`), because the pull request comment echoes it.",
    )

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
