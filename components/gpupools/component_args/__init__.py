"""The arguments each gpupools component accepts, checked before the component registers anything.

Someone composing ``AksGpuPool`` or ``GpuSmokeTest`` in their own stack gets the same rules as the stack
config (name syntax from ``config.names``, bounds and enums from ``config.models``, MIG profiles from
``pools``) as a ``TypeError``/``ValueError`` naming each bad argument, instead of a half-registered
component or a cloud error minutes later. Pulumi outputs and other deferred values (``Output``,
resources, awaitables) pass unchecked: their value is not known yet. Pure: imports no Pulumi.
"""

from __future__ import annotations

import difflib
import inspect
import ipaddress
import re
from typing import Annotated, Any, Literal, Mapping, Optional

import pydantic
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, WrapValidator, model_validator

from .autoscaling import AWS_TEMPLATE_TAG_BUDGET, EKS_OWN_ASG_TAGS
from .config import aws_rules, azure_rules, names
from .config import models as config
from .pools import AKS_GPU_INSTANCE_PROFILES


class ComponentArgsError(TypeError, ValueError):
    """Bad component arguments; ``str()`` is one line per problem: ``<Component>(<name>) args.<key>: ...``."""

    def __init__(self, component: str, name: str, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(f"{component}({name!r}) args{problem}" for problem in problems))


def is_deferred(value: Any) -> bool:
    """A Pulumi value whose content is not ours to check now: an Output, a resource, an awaitable."""
    module = type(value).__module__ or ""
    return module == "pulumi" or module.startswith(("pulumi.", "pulumi_")) or inspect.isawaitable(value)


def _let_deferred_through(value: Any, handler: Any) -> Any:
    return value if is_deferred(value) else handler(value)


def _input(annotation: Any) -> Any:
    """``annotation`` for plain values; a Pulumi output in its place is accepted as is."""
    return Annotated[annotation, WrapValidator(_let_deferred_through)]


def _like(model: type[BaseModel], field: str) -> Any:
    """The type and bounds of a stack config field, so components and config share one rule."""
    info = model.model_fields[field]
    return _input(Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation)


def _matching(pattern: re.Pattern[str], allowed: str) -> Any:
    def check(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(f"allowed: {allowed}")
        return value
    return _input(Annotated[str, AfterValidator(check)])


def _checked(problem: Any) -> Any:
    """A str checked by one of ``config.names``' ``*_problem`` helpers."""
    def check(value: str) -> str:
        why = problem(value)
        if why:
            raise ValueError(why)
        return value
    return Annotated[str, AfterValidator(check)]


def _one_of(allowed: tuple[str, ...], refused: Mapping[str, str]) -> Any:
    """One of the stack config's allowed values; a refused one gets the config's reason."""
    def check(value: str) -> str:
        if value in refused:
            raise ValueError(f"{refused[value]}")
        if value not in allowed:
            raise ValueError(f"allowed: {', '.join(allowed)}")
        return value
    return _input(Annotated[str, AfterValidator(check)])


def _pulumi_object(kind: str) -> Any:
    def check(value: Any) -> Any:
        if not is_deferred(value):
            raise ValueError(f"allowed: a {kind} object, got {type(value).__name__}")
        return value
    return Annotated[Any, AfterValidator(check)]


def _dns_label(value: str) -> str:
    if not names.DNS1123_LABEL.fullmatch(value):
        raise ValueError("allowed: a DNS-1123 label (lowercase letters, digits and '-', at most 63)")
    return value


def _cidr(value: str) -> str:
    try:
        ipaddress.ip_network(value)
    except ValueError:
        raise ValueError("allowed: an IP range in CIDR notation, e.g. 10.244.0.0/16") from None
    return value


Tags = _input(dict[str, _input(str)])


def _tag_problems(cloud: str, tags: Any, limit: int = names.MAX_TAGS, why: str = "") -> list[str]:
    """The cloud's tag rules over a plain tag map (nothing to check while it is a Pulumi output)."""
    if not isinstance(tags, Mapping) or any(is_deferred(v) for v in tags.values()):
        return []
    problems = [f"{key!r}: {message}" for key, message in names.tag_problems(cloud, dict(tags)) if key is not None]
    if len(tags) > limit:
        problems.append(f"{len(tags)} tags; at most {limit}{why}")
    return problems
Labels = _input(dict[_input(_checked(names.label_key_problem)), _input(_checked(names.label_value_problem))])
Strings = _input(list[_input(Annotated[str, Field(min_length=1)])])
Count = _input(Annotated[int, Field(ge=0, le=config.MAX_NODES_PER_POOL)])
MaxPods = _like(config.GpuPoolConfig, "max_pods")
TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
_AKS_TAINT = re.compile(r"(?P<key>[^=:]+)=(?P<value>[^=:]*):(?P<effect>NoSchedule|PreferNoSchedule|NoExecute)")


def _aks_taint(value: str) -> str:
    match = _AKS_TAINT.fullmatch(value)
    why = ("not key=value:Effect" if match is None
           else names.label_key_problem(match["key"]) or names.label_value_problem(match["value"]))
    if why:
        raise ValueError(f"{why}; allowed: key=value:Effect with Effect NoSchedule, PreferNoSchedule or NoExecute, "
                         "e.g. nvidia.com/gpu=present:NoSchedule")
    return value


class _Args(BaseModel):
    """Component arguments: the TypedDict's snake_case keys, no coercion (``count='3'`` is not a count)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, arbitrary_types_allowed=True)


# --- AKS ---------------------------------------------------------------------------------------------------------


class AksClusterArgsModel(_Args):
    name: _matching(names.AKS_DNS_PREFIX, "1..54 letters, digits and '-', alphanumeric at both ends (the DNS prefix)")
    resource_group_name: _matching(names.AZURE_RESOURCE_GROUP, "1..90 letters, digits, '_', '-', '.', '(', ')'")
    location: Optional[_matching(names.AZURE_LOCATION, "an Azure region as ARM spells it, e.g. southcentralus")] = None
    create: _input(bool) = True
    kubernetes_version: Optional[_like(config.ClusterConfig, "kubernetes_version")] = None
    system_pool_size: Optional[_input(Annotated[str, Field(min_length=1)])] = None
    system_pool_count: Optional[_like(config.SystemPool, "count")] = None
    system_pool_max_pods: Optional[MaxPods] = None
    pod_cidr: Optional[_input(Annotated[str, AfterValidator(_cidr)])] = None
    tags: Optional[Tags] = None

    @model_validator(mode="after")
    def _location_to_create(self) -> "AksClusterArgsModel":
        if self.create is True and self.location is None:
            raise ValueError("location: is required when create is true (the region of the new cluster)")
        return self


class AksGpuPoolArgsModel(_Args):
    cluster_name: _input(Annotated[str, Field(min_length=1)])
    resource_group_name: _input(Annotated[str, Field(min_length=1)])
    pool_name: _matching(names.AKS_POOL_NAME, "1..12 lowercase letters and digits, starting with a letter")
    vm_size: _input(Annotated[str, Field(min_length=1)])
    count: Count
    gpu_instance_profile: Optional[_input(Literal[AKS_GPU_INSTANCE_PROFILES])] = None
    gpu_driver: Optional[_input(Literal["Install", "None"])] = None
    os_sku: Optional[_one_of(azure_rules.OS_SKUS, azure_rules.REFUSED_OS_SKUS)] = None
    min_count: Optional[Count] = None
    max_count: Optional[Count] = None
    os_disk_size_gb: Optional[_like(config.GpuPoolConfig, "disk_size_gb")] = None
    node_labels: Optional[Labels] = None
    node_taints: Optional[_input(list[_input(Annotated[str, AfterValidator(_aks_taint)])])] = None
    kubernetes_version: Optional[_matching(re.compile(r"1\.\d{2}(\.\d+)?"), "a Kubernetes version such as 1.33")] = None
    max_pods: Optional[MaxPods] = None
    availability_zones: Optional[_like(config.GpuPoolConfig, "availability_zones")] = None
    capacity_reservation_group_id: Optional[_matching(
        names.AZURE_CAPACITY_RESERVATION_GROUP_ID,
        "/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Compute/capacityReservationGroups/<name>",
    )] = None
    scale_set_priority: Optional[_like(config.GpuPoolConfig, "priority")] = None
    scale_set_eviction_policy: Optional[_like(config.GpuPoolConfig, "eviction_policy")] = None
    spot_max_price: Optional[_input(float | int)] = None
    tags: Optional[Tags] = None
    autoscaler_tags: Optional[Tags] = None

    @model_validator(mode="after")
    def _bounds_and_spot(self) -> "AksGpuPoolArgsModel":
        problems = []
        if self.autoscaler_tags:
            merged = {**(self.tags if isinstance(self.tags, Mapping) else {}), **self.autoscaler_tags}
            problems += [f"autoscaler_tags: {problem}" for problem in
                         _tag_problems("azure", merged, why=" on the node pool (tags and autoscaler_tags together)")]
        if (self.min_count is None) != (self.max_count is None):
            given = "min_count" if self.max_count is None else "max_count"
            problems.append(f"{given}: autoscaling needs both min_count and max_count, got only {given}")
        elif isinstance(self.min_count, int) and isinstance(self.max_count, int) and self.min_count > self.max_count:
            problems.append(f"min_count: {self.min_count} is greater than max_count {self.max_count}")
        if self.scale_set_priority != "Spot":
            for key in ("scale_set_eviction_policy", "spot_max_price"):
                if getattr(self, key) is not None:
                    problems.append(f"{key}: only for scale_set_priority 'Spot' (AKS refuses it on Regular pools)")
        if problems:
            raise ValueError("\n".join(problems))
        return self


# --- EKS ---------------------------------------------------------------------------------------------------------


class EksTaintModel(_Args):
    key: _input(_checked(names.label_key_problem))
    value: _input(_checked(names.label_value_problem))
    effect: _input(TaintEffect)


class EksClusterArgsModel(_Args):
    name: _matching(names.EKS_CLUSTER_NAME, "1..100 letters, digits, '-' and '_', starting with a letter or digit")
    create: _input(bool) = True
    kubernetes_version: Optional[_like(config.ClusterConfig, "kubernetes_version")] = None
    system_node_size: Optional[_input(Annotated[str, Field(min_length=1)])] = None
    system_node_count: Optional[_like(config.SystemPool, "count")] = None
    subnet_ids: Optional[_input(list[_matching(names.SUBNET_ID, "a subnet id, subnet-0123456789abcdef0")])] = None
    vpc_id: Optional[_matching(names.VPC_ID, "a VPC id, vpc-0123456789abcdef0")] = None
    tags: Optional[Tags] = None

    @model_validator(mode="after")
    def _vpc_with_subnets(self) -> "EksClusterArgsModel":
        if self.vpc_id is not None and not self.subnet_ids:
            raise ValueError("vpc_id: needs subnet_ids in that VPC (pulumi-eks would pick subnets of another VPC)")
        return self


class EksGpuNodeGroupArgsModel(_Args):
    cluster: _pulumi_object("pulumi_eks Cluster")
    node_role: Optional[_pulumi_object("pulumi_aws iam.Role")] = None
    node_group_name: _matching(names.EKS_NODE_GROUP_NAME, f"1..{names.POOL_NAME_MAX} lowercase letters, digits and "
                                                          "'-', alphanumeric at both ends")
    instance_type: _input(Annotated[str, Field(min_length=1)])
    desired_size: Count
    min_size: Optional[Count] = None
    max_size: Optional[Count] = None
    ami_type: Optional[_one_of(aws_rules.AMI_TYPES, aws_rules.REFUSED_AMI_TYPES)] = None
    disk_size_gb: Optional[_like(config.GpuPoolConfig, "disk_size_gb")] = None
    labels: Optional[Labels] = None
    taints: Optional[_input(list[_input(EksTaintModel)])] = None
    subnet_ids: Optional[_input(list[_matching(names.SUBNET_ID, "a subnet id, subnet-0123456789abcdef0")])] = None
    capacity_type: Optional[_like(config.GpuPoolConfig, "capacity_type")] = None
    capacity_reservation: Optional[_input(str)] = None
    efa: Optional[_input(bool)] = None
    efa_interfaces: Optional[_input(Annotated[int, Field(ge=1, le=32)])] = None
    tags: Optional[Tags] = None
    autoscaler_tags: Optional[Tags] = None

    @model_validator(mode="after")
    def _capacity_and_efa(self) -> "EksGpuNodeGroupArgsModel":
        problems = []
        reservation = self.capacity_reservation
        if isinstance(reservation, str) and reservation_target_key(reservation) is None:
            problems.append("capacity_reservation: allowed: a capacity reservation id (cr-0123456789abcdef0) or a "
                            "capacity reservation resource group ARN (arn:aws:resource-groups:<region>:<account>:group/<name>)")
        if self.capacity_type == "CAPACITY_BLOCK" and not (
                is_deferred(reservation) or (isinstance(reservation, str) and names.CAPACITY_RESERVATION_ID.fullmatch(reservation))):
            problems.append("capacity_reservation: capacity_type CAPACITY_BLOCK needs the Capacity Block's reservation id "
                            "(cr-...): EKS rejects a Capacity Block node group whose launch template does not target it")
        problems += [f"autoscaler_tags: {problem}" for problem in _tag_problems(
            "aws", self.autoscaler_tags, AWS_TEMPLATE_TAG_BUDGET,
            f" on the Auto Scaling group (AWS allows {names.MAX_TAGS}; EKS sets {EKS_OWN_ASG_TAGS} itself)")]
        if self.efa_interfaces is not None and self.efa is not True:
            problems.append("efa_interfaces: only with efa true")
        for low in ("min_size", "desired_size"):
            if isinstance(getattr(self, low), int) and isinstance(self.max_size, int) and getattr(self, low) > self.max_size:
                problems.append(f"{low}: {getattr(self, low)} is greater than max_size {self.max_size}")
        if problems:
            raise ValueError("\n".join(problems))
        return self


def reservation_target_key(reservation: str) -> str | None:
    """The launch template's ``capacity_reservation_target`` key for an ODCR id or group ARN; None for neither."""
    if names.CAPACITY_RESERVATION_ID.fullmatch(reservation):
        return "capacity_reservation_id"
    if names.CAPACITY_RESERVATION_GROUP_ARN.fullmatch(reservation):
        return "capacity_reservation_resource_group_arn"
    return None


# --- Kubernetes --------------------------------------------------------------------------------------------------


class NvidiaChartArgsModel(_Args):
    """``version`` is checked against the chart's own spelling (``validation_context={"installer": ...}``)."""

    version: _input(str)
    namespace: _input(Annotated[str, AfterValidator(_dns_label)])
    values: _input(dict[str, Any])
    timeout_seconds: Optional[_input(Annotated[int, Field(ge=1, le=86400)])] = None
    create_namespace: Optional[_input(bool)] = None

    @pydantic.field_validator("version")
    @classmethod
    def _pinned(cls, version: Any, info: ValidationInfo) -> Any:
        installer = (info.context or {}).get("installer")
        if isinstance(version, str) and installer and not config.PINNED_VERSION[installer].match(version):
            example = config.DEFAULT_VERSIONS[installer]
            raise ValueError(f"{version!r} is not an exact {installer} chart version; allowed: e.g. '{example}' "
                             "('latest' and ranges are refused)")
        return version


# The Job is ``<pool>-smoke``, a DNS subdomain whose name Kubernetes also puts in a label (63 at most).
SMOKE_JOB_SUFFIX = "-smoke"
_SMOKE_POOL = re.compile(rf"[a-z0-9]([-a-z0-9]{{0,{63 - len(SMOKE_JOB_SUFFIX) - 2}}}[a-z0-9])?")
_IMAGE = re.compile(r"[a-z0-9][a-z0-9._/:-]*(:(?!latest$)[\w][\w.-]{0,127}|@sha256:[0-9a-f]{64})")


class GpuSmokeTestArgsModel(_Args):
    pool_name: _matching(_SMOKE_POOL, f"1..{63 - len(SMOKE_JOB_SUFFIX)} lowercase letters, digits and '-' "
                                      "(the Job is <pool>-smoke)")
    namespace: _input(Annotated[str, AfterValidator(_dns_label)])
    resources: _input(Annotated[list[_input(_checked(names.label_key_problem))], Field(min_length=1)])
    node_selector: Labels
    toleration_key: _input(_checked(names.label_key_problem))
    image: Optional[_matching(_IMAGE, "an image with a pinned tag (not latest) or digest, "
                                      "e.g. nvcr.io/nvidia/cuda:12.8.1-base-ubuntu24.04")] = None


_OIDC_PROVIDER_ARN = re.compile(r"arn:aws(-cn|-us-gov)?:iam::\d{12}:oidc-provider/.+")


class ClusterAutoscalerArgsModel(_Args):
    cluster_name: _matching(names.EKS_CLUSTER_NAME, "1..100 letters, digits, '-' and '_', starting with a letter or digit")
    region: _matching(names.AWS_REGION, "an AWS region, e.g. us-east-1")
    oidc_provider_arn: _matching(_OIDC_PROVIDER_ARN, "the cluster's IAM OIDC provider ARN, "
                                                     "arn:aws:iam::<account>:oidc-provider/oidc.eks.<region>.amazonaws.com/id/<id>")
    oidc_provider_url: _matching(re.compile(r"(https://)?[a-z0-9.-]+(/[A-Za-z0-9._-]+)*"),
                                 "the issuer URL, e.g. https://oidc.eks.us-east-1.amazonaws.com/id/<id>")
    version: Optional[_like(config.ClusterAutoscalerConfig, "version")] = None
    namespace: Optional[_input(Annotated[str, AfterValidator(_dns_label)])] = None
    service_account: Optional[_input(Annotated[str, AfterValidator(_dns_label)])] = None
    expander: Optional[_like(config.ClusterAutoscalerConfig, "expander")] = None
    priorities: Optional[_input(dict[_input(Annotated[str, Field(pattern=r"^\d+$")]), _input(list[str])])] = None
    scale_down_utilization_threshold: Optional[_like(config.ClusterAutoscalerConfig, "scale_down_utilization_threshold")] = None
    scale_down_gpu_utilization_threshold: Optional[
        _like(config.ClusterAutoscalerConfig, "scale_down_gpu_utilization_threshold")] = None
    tags: Optional[Tags] = None

    @model_validator(mode="after")
    def _priorities(self) -> "ClusterAutoscalerArgsModel":
        if self.expander == "priority" and not self.priorities:
            raise ValueError("priorities: expander 'priority' needs them (the priority expander fails without its "
                             "ConfigMap), e.g. {'10': ['.*p4d.*']}")
        if self.priorities and self.expander != "priority":
            raise ValueError("priorities: only read by expander 'priority'")
        return self


# --- Entry point -------------------------------------------------------------------------------------------------


def check_args(model: type[_Args], component: str, name: Any, args: Any,
               context: Mapping[str, Any] | None = None) -> Any:
    """``args`` unchanged when ``model`` accepts them, else ``ComponentArgsError`` with one line per problem."""
    if not isinstance(name, str) or not name:
        raise ComponentArgsError(component, str(name), [f": the resource name must be a non-empty str, got {name!r}"])
    if not isinstance(args, Mapping):
        raise ComponentArgsError(component, name, [f": expected a dict of arguments ({', '.join(model.model_fields)}), "
                                                   f"got {type(args).__name__}"])
    try:
        model.model_validate(dict(args), context=dict(context or {}))
    except pydantic.ValidationError as error:
        raise ComponentArgsError(component, name, _problems(model, args, error)) from None
    return args


def _problems(model: type[_Args], args: Mapping[str, Any], error: pydantic.ValidationError) -> list[str]:
    problems: list[str] = []
    for item in error.errors(include_url=False):
        path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in item["loc"]
                       if not (isinstance(part, str) and ("[" in part or part in ("str", "int", "float", "bool"))))
        if item["type"] == "extra_forbidden":
            key = str(item["loc"][-1])
            close = difflib.get_close_matches(_snake(key), list(model.model_fields), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(model.model_fields)}"
            line = f"{path}: unknown argument {key!r}{hint}"
        elif item["type"] == "missing":
            line = f"{path}: is required"
        elif item["type"] == "value_error" and not item["loc"]:
            line = "\n".join(f".{part}" for part in item["msg"].removeprefix("Value error, ").split("\n"))
        else:
            message = item["msg"].removeprefix("Value error, ")
            line = f"{path}: {message} (got {item.get('input')!r})"
        if line not in problems:
            problems.append(line)
    return problems


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
