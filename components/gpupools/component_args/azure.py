"""Arguments of the AKS components (``AksCluster``, ``AksGpuPool``)."""

from __future__ import annotations

import re
from typing import Annotated, Literal, Mapping, Optional

from pydantic import AfterValidator, Field, model_validator

from ..catalog import clouds, names
from ..catalog.instances import INSTANCE_SIZES
from ..catalog.labels import GPUPOOLS_NODE_LABELS
from ..resolve import azure_rules
from ..resolve.mig_rules import size_mig_problem
from ..resolve.pool_rules import duplicate_taint_problems, reserved_label_problem
from ..resolve.versions import kubernetes_version_problem, long_term_support_problem
from ..catalog.clock import plan_date
from ..config import models as config
from .fields import (
    Count,
    MaxPods,
    Rule,
    Tags,
    _Args,
    _checked,
    _cidr,
    _input,
    _labels_but_ours,
    _like,
    _matching,
    _one_of,
    _size,
    _tag_problems,
    is_deferred,
)

_AKS_TAINT = re.compile(r"(?P<key>[^=:]+)=(?P<value>[^=:]*):(?P<effect>NoSchedule|PreferNoSchedule|NoExecute)")


def _aks_taint(value: str) -> str:
    match = _AKS_TAINT.fullmatch(value)
    why = (
        "not key=value:Effect"
        if match is None
        else names.label_key_problem(match["key"]) or names.label_value_problem(match["value"])
    )
    if why:
        raise ValueError(
            f"{why}; allowed: key=value:Effect with Effect NoSchedule, PreferNoSchedule or NoExecute, "
            "e.g. nvidia.com/gpu=present:NoSchedule"
        )
    return value


class AksClusterArgsModel(_Args):
    name: Annotated[
        str,
        Rule(
            _matching(names.AKS_DNS_PREFIX, "1..54 letters, digits and '-', alphanumeric at both ends (the DNS prefix)")
        ),
    ]
    resource_group_name: Annotated[
        str, Rule(_matching(names.AZURE_RESOURCE_GROUP, "1..90 letters, digits, '_', '-', '.', '(', ')'"))
    ]
    location: Optional[
        Annotated[str, Rule(_matching(names.AZURE_LOCATION, "an Azure region as ARM spells it, e.g. southcentralus"))]
    ] = None
    create: Annotated[bool, Rule(_input(bool))] = True
    kubernetes_version: Optional[
        Annotated[str, Rule(_input(_checked(lambda v: kubernetes_version_problem("azure", v, plan_date().day))))]
    ] = None
    long_term_support: Annotated[bool, Rule(_input(bool))] = False
    system_pool_size: Optional[Annotated[str, Rule(_size("azure"))]] = None
    system_pool_count: Optional[Annotated[int, Rule(_like(config.SystemPool, "count"))]] = None
    system_pool_max_pods: Optional[MaxPods] = None
    pod_cidr: Optional[Annotated[str, Rule(_input(Annotated[str, AfterValidator(_cidr)]))]] = None
    capacity_reservation_group_ids: Optional[
        Annotated[
            list[str],
            Rule(
                _input(
                    list[
                        _matching(
                            names.AZURE_CAPACITY_RESERVATION_GROUP_ID,
                            "/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Compute/capacityReservationGroups/<name>",
                        )
                    ]
                )
            ),
        ]
    ] = None
    tags: Optional[Tags] = None

    @model_validator(mode="after")
    def _location_to_create(self) -> "AksClusterArgsModel":
        if self.create is True and self.location is None:
            raise ValueError("location: is required when create is true (the region of the new cluster)")
        version = self.kubernetes_version
        if self.create is True and not self.long_term_support and isinstance(version, str):
            why = long_term_support_problem("azure", version, plan_date().day)
            if why:
                raise ValueError(f"kubernetes_version: {why.replace('cluster.longTermSupport', 'long_term_support')}")
        return self


class AksGpuPoolArgsModel(_Args):
    cluster_name: Annotated[str, Rule(_input(Annotated[str, Field(min_length=1)]))]
    resource_group_name: Annotated[str, Rule(_input(Annotated[str, Field(min_length=1)]))]
    pool_name: Annotated[str, Rule(_input(_checked(azure_rules.aks_pool_name_problem)))]
    vm_size: Annotated[str, Rule(_size("azure"))]
    count: Count
    gpu_instance_profile: Optional[Annotated[str, Rule(_input(Literal[clouds.AKS_GPU_INSTANCE_PROFILES]))]] = None
    gpu_driver: Optional[Annotated[str, Rule(_input(Literal["Install", "None"]))]] = None
    os_sku: Optional[Annotated[str, Rule(_one_of(clouds.OS_SKUS, clouds.REFUSED_OS_SKUS))]] = None
    min_count: Optional[Count] = None
    max_count: Optional[Count] = None
    os_disk_size_gb: Optional[Annotated[int, Rule(_like(config.GpuPoolConfig, "disk_size_gb"))]] = None
    node_labels: Optional[
        Annotated[dict[str, str], Rule(_labels_but_ours(GPUPOOLS_NODE_LABELS, reserved_label_problem))]
    ] = None
    node_taints: Optional[
        Annotated[list[str], Rule(_input(list[_input(Annotated[str, AfterValidator(_aks_taint)])]))]
    ] = None
    kubernetes_version: Optional[
        Annotated[
            str, Rule(_input(_checked(lambda v: kubernetes_version_problem("azure", v, plan_date().day, patch=True))))
        ]
    ] = None
    max_pods: Optional[MaxPods] = None
    availability_zones: Optional[Annotated[list[str], Rule(_like(config.GpuPoolConfig, "availability_zones"))]] = None
    capacity_reservation_group_id: Optional[
        Annotated[
            str,
            Rule(
                _matching(
                    names.AZURE_CAPACITY_RESERVATION_GROUP_ID,
                    "/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Compute/capacityReservationGroups/<name>",
                )
            ),
        ]
    ] = None
    scale_set_priority: Optional[Annotated[str, Rule(_like(config.GpuPoolConfig, "priority"))]] = None
    scale_set_eviction_policy: Optional[Annotated[str, Rule(_like(config.GpuPoolConfig, "eviction_policy"))]] = None
    spot_max_price: Optional[Annotated[float | int, Rule(_input(float | int))]] = None
    tags: Optional[Tags] = None
    autoscaler_tags: Optional[Tags] = None

    @model_validator(mode="after")
    def _bounds_and_spot(self) -> "AksGpuPoolArgsModel":
        problems = []
        if self.autoscaler_tags:
            merged = {**(self.tags if isinstance(self.tags, Mapping) else {}), **self.autoscaler_tags}
            problems += [
                f"autoscaler_tags: {problem}"
                for problem in _tag_problems(
                    "azure", merged, why=" on the node pool (tags and autoscaler_tags together)"
                )
            ]
        if (self.min_count is None) != (self.max_count is None):
            given = "min_count" if self.max_count is None else "max_count"
            problems.append(f"{given}: autoscaling needs both min_count and max_count, got only {given}")
        elif isinstance(self.min_count, int) and isinstance(self.max_count, int):
            bounds = config.bounds_problem(self.min_count, self.max_count, "min_count", "max_count")
            problems += [f"min_count: {bounds}"] if bounds else []
        spot_only = {"scale_set_eviction_policy": self.scale_set_eviction_policy, "spot_max_price": self.spot_max_price}
        problems += [
            f"{key}: only for scale_set_priority 'Spot' (AKS refuses it on Regular pools)"
            for key in azure_rules.spot_only_keys(self.scale_set_priority, spot_only)
        ]
        price = azure_rules.spot_max_price_problem(self.spot_max_price)
        problems += [f"spot_max_price: {price}"] if price else []
        spot_group = azure_rules.spot_reservation_problem(
            self.scale_set_priority, self.capacity_reservation_group_id is not None
        )
        problems += [f"capacity_reservation_group_id: {spot_group}"] if spot_group else []
        problems += self._mig_and_taint_problems()
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def _mig_and_taint_problems(self) -> list[str]:
        """A MIG profile only on a size the catalog knows with MIG; one taint per key and effect."""
        problems = []
        if isinstance(self.gpu_instance_profile, str) and isinstance(self.vm_size, str):
            size = INSTANCE_SIZES.get(self.vm_size)
            no_mig = size_mig_problem(self.vm_size, size.gpu if size and size.cloud == "azure" else None)
            problems += [f"gpu_instance_profile: {no_mig}"] if no_mig else []
        taints = self.node_taints
        if isinstance(taints, list) and not any(is_deferred(taint) for taint in taints):
            parsed = [_AKS_TAINT.fullmatch(taint) for taint in taints]
            problems += [
                f"node_taints: {why}"
                for why in duplicate_taint_problems(
                    [(match["key"], match["value"], match["effect"]) for match in parsed if match]
                )
            ]
        return problems
