"""``GpuPlatform`` args -> the stack config ``load_stack`` validates, and its problems back in the args' names.

The key names come from the config's pydantic models themselves (Python name -> camelCase alias), so the
component and the stack file cannot drift apart and no rule is written twice. Values another resource
produces (``DEFERRABLE``: names, ids, counts) may be outputs: validation sees a placeholder that passes
their syntax checks, and the output itself goes to the resources (``Deferred``). An output anywhere else
is refused, because those values decide sizes, layouts, labels and chart values while planning.
Pure: imports no Pulumi.
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass, field
from typing import Any, Mapping, TypeVar, Union, cast, get_args, get_origin

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.cloud_registry import cloud_names
from ..component_args.fields import is_deferred
from ..config.errors import NAMESPACE, Problem
from ..config.models import Autoscaling, GpuPoolConfig, MigConfig, StackConfig
from ..errors import GpupoolsError
from ..untrusted.lookup import closest

Args = TypeVar("Args")

# Fields that may be outputs, and what validation sees instead: values that pass their syntax rules.
DEFERRABLE: dict[tuple[str, ...], Any] = {
    ("cluster", "name"): "deferred-cluster-name",
    ("cluster", "resource_group"): "deferred-resource-group",
    ("cluster", "vpc_id"): "vpc-00000000",
    ("cluster", "subnet_ids"): "subnet-{:08x}",
    ("cluster", "node_role_arn"): "arn:aws:iam::000000000000:role/deferred-node-role",
    ("gpu_pools", "count"): 1,  # raised to the autoscaling minimum when one is set
    ("gpu_pools", "capacity_reservation_group_id"): (
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/deferred/providers/"
        "Microsoft.Compute/capacityReservationGroups/deferred"
    ),
    ("gpu_pools", "capacity_reservation"): "cr-00000000000000000",
    ("gpu_pools", "subnet_ids"): "subnet-{:08x}",
}
MIX_KEY = "layout_mix"  # MigConfig.layout when it is a per-GPU mix: schemas have no str | dict union
GPUS_KEY = "layout_gpus"  # MigConfig.layout when it is a per-GPU layout (a list of groups)
LAYOUT_KEYS = {MIX_KEY: "a mix", GPUS_KEY: "a per-GPU layout"}  # each is MigConfig.layout under another name


class PlatformArgsError(GpupoolsError, ValueError):
    """Args that do not map onto the stack config; ``problems`` are ``(path, message)`` in the args' names."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("\n".join(f"{path}: {message}" for path, message in problems))


@dataclass(frozen=True)
class Deferred:
    """The outputs given for ``DEFERRABLE`` fields: cluster ones by field, pool ones by pool index and field."""

    cluster: dict[str, Any] = field(default_factory=dict)
    pools: dict[int, dict[str, Any]] = field(default_factory=dict)

    def cluster_value(self, key: str, plain: Any) -> Any:
        return self.cluster.get(key, plain)

    def pool_value(self, index: int, key: str, plain: Any) -> Any:
        return self.pools.get(index, {}).get(key, plain)

    def pool_has(self, index: int, key: str) -> bool:
        return key in self.pools.get(index, {})


def to_stack_config(args: Any) -> tuple[dict[str, Any], Deferred, list[tuple[str, str]]]:
    """``gpupools:``-namespaced raw config for ``load_stack``, the deferred outputs, and the args' own problems
    (unknown keys, refused outputs: left out of the config); ``PlatformArgsError`` when args is no mapping."""
    if not isinstance(args, Mapping):
        raise PlatformArgsError(
            [("", f"expected a dict of arguments ({', '.join(StackConfig.model_fields)}), got {type(args).__name__}")]
        )
    walk = _Walk()
    values = walk.mapping(StackConfig, args, ())
    walk.problems += _discovery_tag_problems(values, walk.deferred)
    return {f"{NAMESPACE}:{key}": value for key, value in values.items()}, walk.deferred, walk.problems


def _discovery_tag_problems(values: Mapping[str, Any], deferred: Deferred) -> list[tuple[str, str]]:
    """Where gpupools' cluster autoscaler discovers node groups by a tag whose key holds the cluster's name
    (``k8s.io/cluster-autoscaler/<cluster>``), an autoscaled pool needs that name while planning: a tag key cannot
    wait for an output, and the placeholder must never reach the cloud."""
    name = values.get("cloud")
    if "name" not in deferred.cluster or not isinstance(name, str) or name not in cloud_names():
        return []
    if not cloud_named(name).cluster_autoscaler_chart:
        return []
    pools = values.get("gpuPools")
    return [
        (
            f"gpu_pools[{index}].autoscaling",
            "needs cluster.name as a plain string, not an output: the cluster autoscaler finds the node group by "
            "a tag whose key holds the cluster's name (k8s.io/cluster-autoscaler/<cluster>)",
        )
        for index, pool in enumerate(pools if isinstance(pools, list) else [])
        if isinstance(pool, Mapping) and pool.get("autoscaling") is not None
    ]


def merged_problems(own: list[tuple[str, str]], rules: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The args' own problems, then the rules' ones about other fields (a left-out key is not reported twice)."""

    def covered(path: str) -> bool:
        return any(path == mine or path.startswith((f"{mine}.", f"{mine}[")) for mine, _ in own)

    return own + [(path, message) for path, message in rules if not covered(path)]


def args_problems(problems: list[Problem], args: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``load_stack`` problems with their field renamed to the args' path
    (``gpupools:gpuPools[0].osSku`` -> ``gpu_pools[0].os_sku``)."""
    return [(args_path(problem.field, args), problem.message) for problem in problems]


def args_path(config_field: str, args: Mapping[str, Any]) -> str:
    path = config_field.removeprefix(f"{NAMESPACE}:")
    tokens: list[str] = re.findall(r"\[\d+\]|[^.\[\]]+", path)
    names = [token if token.startswith("[") else _PYTHON_NAMES.get(token, token) for token in tokens]
    # gpu_pools[i].mig.layout is layout_mix or layout_gpus where the args gave a mix or a per-GPU layout.
    if len(names) >= 4 and names[0] == "gpu_pools" and names[2:4] == ["mig", "layout"]:
        pools = args.get("gpu_pools")
        index = int(names[1][1:-1])
        pool = pools[index] if isinstance(pools, list) and index < len(pools) else None
        mig = pool.get("mig") if isinstance(pool, Mapping) else None
        given = [key for key in LAYOUT_KEYS if isinstance(mig, Mapping) and key in mig]
        if given:
            names[3] = given[0]
    return "".join(name if name.startswith("[") or not i else f".{name}" for i, name in enumerate(names))


_LEFT_OUT = object()  # a refused value: reported once, kept out of the config


class _Walk:
    """One pass over the args: camelCase keys, placeholders for deferred outputs, problems for the rest."""

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []
        self.deferred = Deferred()

    def mapping(self, model: type[BaseModel], value: Mapping[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
        fields = model.model_fields
        out: dict[str, Any] = {}
        for key, item in value.items():
            if model is MigConfig and key in LAYOUT_KEYS:
                key_name, alias = str(key), "layout"
                others = [other for other in ("layout", *LAYOUT_KEYS) if other != key and other in value]
                if others:
                    self.problems.append(
                        (_shown(path + (key_name,)), f"set layout (a name) or {key} ({LAYOUT_KEYS[key]}), not both")
                    )
                    continue
            elif isinstance(key, str) and key in fields:
                key_name, alias = key, fields[key].alias or to_camel(key)
            else:
                close = closest(str(key), [*fields, *(LAYOUT_KEYS if model is MigConfig else [])])
                hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(fields)}"
                self.problems.append((_shown(path + (str(key),)), f"unknown argument {str(key)!r}{hint}"))
                continue
            converted = self.value(
                fields[key_name if key_name not in LAYOUT_KEYS else "layout"].annotation, item, path + (key_name,)
            )
            if converted is not _LEFT_OUT:
                out[alias] = converted
        if model is GpuPoolConfig and path and self.deferred.pool_has(path[-1], "count"):
            out["count"] = _count_placeholder(out.get("autoscaling"))
            if out.get("smokeTest") is True:
                self.problems.append(
                    (
                        _shown(path + ("smoke_test",)),
                        "needs a plain count: with count an output, "
                        "whether the pool has nodes for the Job is unknown while planning",
                    )
                )
        return out

    def value(self, annotation: Any, item: Any, path: tuple[Any, ...]) -> Any:
        pattern = tuple(part for part in path if isinstance(part, str))
        if pattern in DEFERRABLE and _holds_deferred(item):
            return self._defer(pattern, item, path)
        kind, model = _nested(annotation)
        if model is not None and kind == "model" and isinstance(item, Mapping):
            return self.mapping(model, item, path)
        if model is not None and kind == "list" and isinstance(item, list):
            return [
                self.mapping(model, entry, path + (i,))
                if isinstance(entry, Mapping)
                else self._plain(entry, path + (i,))
                for i, entry in enumerate(item)
            ]
        if model is not None and kind == "dict" and isinstance(item, Mapping):
            return {
                key: self.mapping(model, entry, path + (key,))
                if isinstance(entry, Mapping)
                else self._plain(entry, path + (key,))
                for key, entry in item.items()
            }
        return self._plain(item, path)

    def _plain(self, item: Any, path: tuple[Any, ...]) -> Any:
        if _holds_deferred(item):
            self.problems.append(
                (
                    _shown(path),
                    "must be a plain value, not an output: it decides sizes, layouts, "
                    "labels or chart values while planning",
                )
            )
            return _LEFT_OUT
        return item

    def _defer(self, pattern: tuple[str, ...], item: Any, path: tuple[Any, ...]) -> Any:
        placeholder = DEFERRABLE[pattern]
        if pattern[0] == "cluster":
            self.deferred.cluster[pattern[1]] = item
        else:
            self.deferred.pools.setdefault(path[1], {})[pattern[1]] = item
        if pattern[-1] == "subnet_ids":
            return [placeholder.format(i) for i in range(len(item) if isinstance(item, list) else 1)]
        return placeholder


def _nested(annotation: Any) -> tuple[str | None, type[BaseModel] | None]:
    """("model" | "list" | "dict", the pydantic model) for a field holding config models, else (None, None)."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        for option in get_args(annotation):
            kind, model = _nested(option)
            if model is not None:
                return kind, model
        return None, None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "model", annotation
    if origin is list:
        inner = get_args(annotation)[0]
        return ("list", inner) if isinstance(inner, type) and issubclass(inner, BaseModel) else (None, None)
    if origin is dict:
        inner = get_args(annotation)[1]
        return ("dict", inner) if isinstance(inner, type) and issubclass(inner, BaseModel) else (None, None)
    return None, None


def config_models() -> list[type[BaseModel]]:
    """Every config model reachable from ``StackConfig`` (the models the args mirror)."""
    found: list[type[BaseModel]] = []
    pending: list[type[BaseModel]] = [StackConfig]
    while pending:
        model = pending.pop()
        if model in found:
            continue
        found.append(model)
        pending += [m for info in model.model_fields.values() if (m := _nested(info.annotation)[1]) is not None]
    return found


_PYTHON_NAMES: dict[str, str] = {
    info.alias or to_camel(name): name for model in config_models() for name, info in model.model_fields.items()
}


def _holds_deferred(value: Any) -> bool:
    if is_deferred(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_deferred(item) for item in value)
    if isinstance(value, Mapping):
        return any(_holds_deferred(item) for item in value.values())
    return False


def _count_placeholder(autoscaling: Any) -> int:
    try:
        bounds = Autoscaling.model_validate(autoscaling) if autoscaling is not None else None
    except ValueError:
        bounds = None
    return max(bounds.min_count, 1) if bounds else DEFERRABLE[("gpu_pools", "count")]


def _shown(path: tuple[Any, ...]) -> str:
    return "".join(
        f"[{part}]" if isinstance(part, int) else (f".{part}" if i else str(part)) for i, part in enumerate(path)
    )


def args_from_config(config: StackConfig) -> dict[str, Any]:
    """Validated stack config as ``GpuPlatform`` args: the keys the user set, by Python name (a MIG mix as
    layout_mix, a per-GPU layout as layout_gpus)."""
    args = config.model_dump(exclude_unset=True)
    for pool in args.get("gpu_pools", []):
        mig = pool.get("mig")
        if mig and isinstance(mig.get("layout"), dict):
            mig[MIX_KEY] = mig.pop("layout")
        elif mig and isinstance(mig.get("layout"), list):
            mig[GPUS_KEY] = [{k: v for k, v in group.items() if v is not None} for group in mig.pop("layout")]
    return args


def given(args_type: type[Args], args: Mapping[str, Any]) -> Args:
    """``args`` as a component's args TypedDict, less the keys left None: the components read an absent key and
    a None one alike, while their TypedDicts type only the keys given. Each component checks its args itself."""
    return cast(Args, {key: value for key, value in args.items() if value is not None})
