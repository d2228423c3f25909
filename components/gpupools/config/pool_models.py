"""``gpupools:gpuPools``: one GPU node pool, and how its GPUs are cut (MIG), shared (time-slicing, MPS) and scaled.

Each field's ``description`` is the one text of the stack file's JSON Schema (``gpupools schema``) and of the
configuration reference page (``gpupools.reference_docs``); rules that need the catalog live in ``gpupools.resolve``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ..catalog.names import label_key_problem, label_value_problem
from ..catalog.provisioners import DEFAULT_PROVISIONER, ProvisionerName
from .base import (
    MAX_GPUS_PER_NODE,
    MAX_MPS_REPLICAS,
    MAX_NODES_PER_POOL,
    MAX_TIME_SLICING_REPLICAS,
    Rotation,
    Strict,
    bounds_problem,
    default_rotation,
)


class LayoutGroup(Strict):
    """Some GPUs of each node, cut alike by one per-GPU mix or left whole (mig-parted's per-device entries)."""

    gpus: int = Field(ge=1, le=MAX_GPUS_PER_NODE, description="How many GPUs of each node this entry covers.")
    mix: dict[str, int] | None = Field(
        default=None,
        description="The MIG devices of each of these GPUs, such as `{1g.10gb: 4, 1g.20gb: 1, 2g.20gb: 1}`.",
    )
    whole: bool | None = Field(
        default=None, description="`true`: these GPUs stay whole, not MIG-enabled (mig-parted `mig-enabled: false`)."
    )

    @model_validator(mode="after")
    def _mix_or_whole(self) -> "LayoutGroup":
        if (self.mix is None) == (self.whole is None):
            raise ValueError("set exactly one of 'mix' (a per-GPU mix) or 'whole: true'")
        return self

    @field_validator("mix")
    @classmethod
    def _positive_counts(cls, mix: dict[str, int] | None) -> dict[str, int] | None:
        if mix is not None:
            _check_mix(mix)
        return mix

    @field_validator("whole")
    @classmethod
    def _only_true(cls, whole: bool | None) -> bool | None:
        if whole is False:
            raise ValueError("only true (GPUs left whole); for GPUs cut into MIG devices give a mix instead")
        return whole


class MigConfig(Strict):
    """How each GPU of a pool is cut: one profile (`MIG1g` or `1g.5gb`) or a layout (named, mixed, or per GPU)."""

    profile: str | None = Field(
        default=None,
        min_length=1,
        description="One MIG profile on every GPU: AKS's name (`MIG1g`..`MIG7g`) or NVIDIA's (`1g.5gb`); "
        "`gpupools sizes` lists each size's profiles.",
    )
    layout: str | dict[str, int] | list[LayoutGroup] | None = Field(
        default=None,
        description="A named layout (`all-balanced`, `all-1g.5gb`, ...), a per-GPU mix such as `{1g.5gb: 2, "
        "2g.10gb: 1, 3g.20gb: 1}` on every GPU, or a per-GPU layout: a list of entries `{gpus: 6, mix: {...}}` or "
        "`{gpus: 2, whole: true}` whose `gpus` sum to the size's GPUs. Applied by the GPU Operator's MIG manager; "
        "a node with more than one profile, or with whole GPUs, needs `gpuSoftware.migStrategy: mixed`.",
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> "MigConfig":
        if (self.profile is None) == (self.layout is None):
            raise ValueError("set exactly one of 'profile' or 'layout'")
        return self

    @field_validator("layout", mode="before")
    @classmethod
    def _at_most_one_entry_per_gpu(cls, layout: Any) -> Any:
        """Each entry covers at least one GPU: a longer list is refused before its entries are read."""
        if isinstance(layout, list) and len(layout) > MAX_GPUS_PER_NODE:
            raise ValueError(f"a per-GPU layout has at most {MAX_GPUS_PER_NODE} entries, got {len(layout)}")
        return layout

    @field_validator("layout")
    @classmethod
    def _positive_counts(
        cls, layout: str | dict[str, int] | list[LayoutGroup] | None
    ) -> str | dict[str, int] | list[LayoutGroup] | None:
        if isinstance(layout, dict):
            _check_mix(layout)
        if isinstance(layout, list) and not layout:
            raise ValueError("a per-GPU layout needs at least one entry, e.g. [{gpus: 8, mix: {1g.5gb: 7}}]")
        return layout


def _check_mix(mix: dict[str, int]) -> None:
    if not mix:
        raise ValueError("a layout mix needs at least one profile, e.g. {1g.5gb: 7}")
    bad = [f"{name}: {count}" for name, count in mix.items() if count < 1]
    if bad:
        raise ValueError(f"profile counts must be at least 1, got {', '.join(bad)}")


class TimeSlicing(Strict):
    """Device plugin time-slicing: each GPU (or MIG device) is advertised `replicas` times."""

    replicas: int = Field(
        ge=2, le=MAX_TIME_SLICING_REPLICAS, description="How many times each GPU or MIG device is advertised."
    )
    rename_by_default: bool = Field(
        default=False, description="Advertise `<resource>.shared` instead of the plain resource name."
    )
    fail_requests_greater_than_one: bool = Field(
        default=False, description="Refuse a pod that asks for more than one replica."
    )


class Mps(Strict):
    """CUDA MPS through the device plugin: full GPUs shared by `replicas` clients with memory limits."""

    replicas: int = Field(ge=2, le=MAX_MPS_REPLICAS, description="Clients sharing each GPU.")
    rename_by_default: bool = Field(
        default=False, description="Advertise `<resource>.shared` instead of the plain resource name."
    )
    # The MPS control daemon runs privileged with hostPID (device plugin 0.20.0 chart, GPU Operator v26.7.0 asset;
    # neither sets hostIPC); the user must say they accept that.
    allow_privileged_host_pid: bool = Field(
        default=False,
        alias="allowPrivilegedHostPID",
        description="Required `true`: the MPS control daemon runs privileged with `hostPID` (no `hostIPC`). The old "
        "key `allowPrivilegedHostIPC` is refused with a pointer to this one.",
    )

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

    time_slicing: TimeSlicing | None = Field(
        default=None, description="Time-slicing, on whole GPUs and on MIG devices."
    )
    mps: Mps | None = Field(default=None, description="CUDA MPS, on whole GPUs (on MIG devices only through DRA).")

    @model_validator(mode="after")
    def _one_mode(self) -> "Sharing":
        if (self.time_slicing is None) == (self.mps is None):
            raise ValueError("set exactly one of 'timeSlicing' or 'mps' (they are mutually exclusive)")
        return self


class Autoscaling(Strict):
    """Node count bounds for the cluster autoscaler (AKS's managed one, or the one of `cluster.autoscaler`)."""

    min_count: int = Field(
        ge=0,
        le=MAX_NODES_PER_POOL,
        description="Fewest nodes. 0 (scale from zero) is refused on AKS for pools that advertise MIG or `.shared` "
        "resources, and warned about for DRA pools.",
    )
    max_count: int = Field(ge=1, le=MAX_NODES_PER_POOL, description="Most nodes.")

    @model_validator(mode="after")
    def _ordered(self) -> "Autoscaling":
        problem = bounds_problem(self.min_count, self.max_count, "minCount", "maxCount")
        if problem:
            raise ValueError(problem)
        return self


# Karpenter's own spellings (karpenter.sh_nodepools.yaml v1.14.1): a duration with "Never", a budget's nodes.
KARPENTER_DURATION = r"^(([0-9]+(s|m|h))+|Never)$"
KARPENTER_GRACE = r"^([0-9]+(s|m|h))+$"
KARPENTER_BUDGET = r"^((100|[0-9]{1,2})%|[0-9]+)$"


class KarpenterPoolConfig(Strict):
    """How Karpenter may take a Karpenter pool's nodes away (its NodePool's disruption) and how it ranks the pool."""

    consolidation_policy: Literal["WhenEmpty", "WhenEmptyOrUnderutilized"] = Field(
        default="WhenEmpty",
        description="`WhenEmpty` (default: a node goes only once no pod but daemonsets runs there, so training "
        "runs are never moved to a cheaper node) or `WhenEmptyOrUnderutilized`.",
    )
    consolidate_after: str = Field(
        default="15m",
        pattern=KARPENTER_DURATION,
        description="How long a node stays empty before Karpenter removes it (Karpenter's duration, `15m`, or "
        "`Never`).",
    )
    budget: str = Field(
        default="1",
        pattern=KARPENTER_BUDGET,
        description="At most this many of the pool's nodes (a number, or a percentage `10%`) are disrupted at once "
        "for voluntary reasons (empty, drifted, expired).",
    )
    expire_after: str | None = Field(
        default=None,
        pattern=KARPENTER_DURATION,
        description="A node's longest life (`720h`, or `Never`); unset: Karpenter's default, 720h. Expiry replaces "
        "busy nodes too, once `terminationGracePeriod` has passed.",
    )
    termination_grace_period: str | None = Field(
        default=None,
        pattern=KARPENTER_GRACE,
        description="How long Karpenter waits for a draining node's pods (PodDisruptionBudgets included) before it "
        "deletes them (`48h`); unset: it waits for ever.",
    )
    zones: list[str] = Field(
        default_factory=list,
        max_length=10,
        description="The availability zones (by name, in the cluster's region, e.g. `us-east-1a`) the NodePool may "
        "launch in (`topology.kubernetes.io/zone`); none: wherever its subnets are.",
    )
    weight: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="The NodePool's priority where pools overlap (a pod both could take goes to the higher weight); "
        "unset: gpupools weighs overlapping pools by their order in `gpuPools` (the first highest).",
    )


class GpuPoolConfig(Strict):
    """One GPU node pool (AKS agent pool or EKS managed node group)."""

    name: str = Field(
        min_length=1,
        description="Unique pool name. AKS: lowercase letters and digits, at most 12, not `system`; EKS: lowercase "
        "letters, digits and `-`, alphanumeric at both ends, at most 54 (it also names Kubernetes objects).",
    )
    size: str = Field(
        min_length=1, description="VM size or instance type from the catalog, or one declared in `customSizes`."
    )
    count: int = Field(
        default=1,
        ge=0,
        le=MAX_NODES_PER_POOL,
        description='Nodes (whole numbers only: `true` or `"3"` are refused). With `autoscaling`, the size at '
        "creation only: the autoscaler owns the count afterwards.",
    )
    autoscaling: Autoscaling | None = Field(default=None, description="Autoscaler bounds.")
    provisioner: ProvisionerName = Field(
        default=DEFAULT_PROVISIONER,
        description="Who makes the pool's nodes: `nodeGroup` (default; an AKS agent pool or EKS managed node group "
        "of `count` nodes) or, on aws, `karpenter` (a Karpenter NodePool that launches nodes for pending pods, from "
        "zero up to `maxCount`; the cluster needs `cluster.karpenter`; docs/karpenter.md).",
    )
    max_count: int | None = Field(
        default=None,
        ge=1,
        le=MAX_NODES_PER_POOL,
        description="`provisioner: karpenter` only, required there: the most nodes the NodePool launches (its "
        "`limits`, as nodes and as the GPUs they carry). Such a pool takes neither `count` nor `autoscaling`.",
    )
    karpenter: KarpenterPoolConfig | None = Field(
        default=None, description="`provisioner: karpenter` only: the NodePool's disruption settings and weight."
    )
    mig: MigConfig | None = Field(default=None, description="How each GPU is cut into MIG devices.")
    sharing: Sharing | None = Field(default=None, description="Time-slicing or MPS, on top of (or instead of) MIG.")
    # Allowed values are tables in catalog/clouds.py, so refused ones (Ubuntu2404, Bottlerocket) get a reason.
    os_sku: str | None = Field(
        default=None,
        alias="osSku",
        min_length=1,
        description="azure: the node OS, default `Ubuntu`; the Azure Linux SKUs are refused on A100/H100/H200 sizes, "
        "and with the GPU Operator every pool must match the system pool's Ubuntu. Updated in place.",
    )
    ami_type: str | None = Field(
        default=None,
        min_length=1,
        description="aws: the node AMI, default `AL2023_x86_64_NVIDIA` (Bottlerocket is refused: it runs its own "
        "device plugin and MIG handling).",
    )
    disk_size_gb: int = Field(default=256, ge=64, le=4096, description="OS disk size in GB.")
    labels: dict[str, str] = Field(
        default_factory=dict,
        description="Extra node labels, full Kubernetes label syntax; `nvidia.com/`, `gpupools.io/`, "
        "`kubernetes.io/`, `k8s.io/` (and their subdomains), `kubernetes.azure.com/` and `eks.amazonaws.com/` are "
        "reserved.",
    )
    smoke_test: bool = Field(
        default=False,
        description="Run a Job requesting one unit of each advertised resource; `pulumi up` waits for it.",
    )
    # resolve/daemonsets.py computes the default; AKS allows 10..250 (AKSNodeClass maxPods "Range: 10-250").
    max_pods: int | None = Field(
        default=None,
        ge=10,
        le=250,
        description="azure: pods per node, and at least 30 pods per pool over its fewest nodes (`count`, or "
        "`autoscaling.minCount`; at least one), as AKS requires. Default: room for each of the pool's GPUs or MIG "
        "devices shared 64 times (time-slicing's most replicas), the AKS and NVIDIA daemonsets with every option on "
        "(21 pods) and 10 more, capped at 250 and raised to that floor. It depends only on what is fixed at creation "
        "(size, MIG profile), so editing sharing replicas or toggling metrics or MPS changes a ConfigMap or a chart, "
        "never `maxPods` (which would replace the pool). The price: AKS reserves kubelet memory per pod of "
        "`maxPods` (20 MB each on Kubernetes 1.29 and later).",
    )
    availability_zones: list[Literal["1", "2", "3"]] = Field(
        default_factory=list, description="azure: the zones of the pool's nodes; none is regional."
    )
    capacity_reservation_group_id: str | None = Field(
        default=None,
        min_length=1,
        description="azure: the ARM id of a capacity reservation group; not with Spot (the cluster then gets a "
        "user-assigned control plane identity). As `{id, instances}`, `instances` (the VMs of this size the group "
        "reserves) prices the pool as Azure bills it, for every reserved VM, used or not; nodes above it are warned "
        "about.",
    )
    priority: Literal["Regular", "Spot"] | None = Field(
        default=None,
        description="azure: `Regular` (default) or `Spot` (AKS adds the `kubernetes.azure.com/scalesetpriority=spot:"
        "NoSchedule` taint; the NVIDIA charts and workloads tolerate it).",
    )
    eviction_policy: Literal["Delete", "Deallocate"] | None = Field(
        default=None, description="azure, Spot only: what AKS does with an evicted node (default `Delete`)."
    )
    # Its values: resolve.azure_rules.spot_max_price_problem.
    spot_max_price: float | None = Field(
        default=None,
        description="azure, Spot only: `-1` (up to the on-demand price) or a finite price above 0 with at most five "
        "decimals.",
    )
    capacity_type: Literal["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"] | None = Field(
        default=None,
        description="aws: `ON_DEMAND` (default), `SPOT` (not with `capacityReservation`: reservations hold "
        "On-Demand capacity) or `CAPACITY_BLOCK` (needs `capacityReservation`, the block's `cr-` id: EKS targets a "
        "Capacity Block by id, not by group).",
    )
    capacity_reservation: str | None = Field(
        default=None,
        min_length=1,
        description="aws: an ODCR or Capacity Block id (`cr-...`) or a capacity reservation group ARN in the "
        "cluster's region and its partition (`aws-cn` for `cn-*`, `aws-us-gov` for `us-gov-*`); needs the pool's "
        "`subnetIds`. As `{id, instances, days}`: the instances "
        "it reserves (billed, used or not; `maxCount` above them is refused, as EC2 fails those launches) and, for a "
        "Capacity Block, its length in days (paid up front). Without them the plan says the pool is billed by the "
        "reservation, not priced.",
    )
    subnet_ids: list[str] = Field(
        default_factory=list,
        description="aws: the pool's own subnets, each at most once (a reservation lives in one availability zone); "
        "default: the cluster's.",
    )
    efa: bool = Field(
        default=False,
        description="aws: EFA interfaces (one per network card of the size) and a cluster placement group, on "
        "EFA-capable sizes; needs exactly one pool `subnetIds` entry (a placement group lives in one availability "
        "zone, and a subnet's zone cannot be checked offline) and the cluster's `vpcId` (multi-interface nodes get no "
        "public IP, so they never join from the default VPC's public subnets). The plan warns that pods can request "
        "the interfaces (`vpc.amazonaws.com/efa`) only once the AWS EFA device plugin runs, tolerating "
        "`nvidia.com/gpu`: gpupools does not install it.",
    )
    # What the reservation holds (given as `{id, instances, days}`): a reservation is billed for what it reserves,
    # used or not (domain/cost.py), and a Capacity Block for its whole length, up front.
    reserved_instances: int | None = Field(
        default=None,
        ge=1,
        le=MAX_NODES_PER_POOL,
        description="The instances the pool's reservation holds; usually written as the reservation's `instances`.",
    )
    reserved_days: int | None = Field(  # 182 days is the longest block EC2 sells
        default=None,
        ge=1,
        le=182,
        description="A Capacity Block's length in days; usually written as `capacityReservation`'s `days`.",
    )
    # domain/rotation.py; None: by count.
    rotation: Rotation | None = Field(
        default=None,
        description="How a change to a field fixed at creation replaces the pool: `surge` creates the new pool "
        "first, `recreate` deletes first. Default: `surge`, or `recreate` for `count: 0`.",
    )

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
