"""The part of a malformed stack config that is still well formed, so the rules run on it in the same run.

Without this, problems arrive in rounds: a pool with one bad field hides every rule problem of that pool until
the field is fixed. Here each mapping keeps what validates: unknown keys are left out, and so is a malformed field
that has a default (the default stands in for it). A mapping whose required field, nested mapping or own
cross-field check is malformed is dropped whole (a pool or the cluster becomes None, which the rules skip).

A default standing in for the user's value can make a rule complain about the default, not the user's config:
``PartialConfig.keeps`` drops rule problems at or under a left-out field, and those of the same mapping that name
it, so what is reported is only what is still wrong once the shape errors are fixed.
"""

from __future__ import annotations

import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Union

import pydantic

from ..catalog.cloud_registry import cloud_names
from .errors import Problem, field_path
from .models import ClusterConfig, CustomSize, GpuPoolConfig, GpuSoftware, StackConfig, Strict
from ..untrusted.lookup import closest

Location = tuple[str | int, ...]


@dataclass(frozen=True)
class PartialConfig:
    """The well-formed part of a config, and where a user's value was left out (defaults stand in for them)."""

    config: StackConfig
    left_out: tuple[Location, ...]

    def keeps(self, problem: Problem) -> bool:
        """False for a rule problem that may be about a left-out value rather than the user's config."""
        for location in self.left_out:
            if _at_or_under(problem.field, field_path(*location)):
                return False
            *parents, key = location  # a left-out value is always at a key or index
            owner = field_path(*parents) if parents else None
            same_mapping = owner is None or _at_or_under(problem.field, owner)
            if same_mapping and re.search(rf"(?<![\w.]){re.escape(str(key))}(?!\w)", problem.message):
                return False
            dotted = ".".join(str(part) for part in location)  # a rule elsewhere naming it: gpuSoftware.migStrategy
            if all(isinstance(part, str) for part in location) and len(location) > 1 and dotted in problem.message:
                return False
        return True


def _stand_in_software() -> GpuSoftware:
    """The first installer's defaults; every rule problem that names gpuSoftware is dropped (``keeps``)."""
    from ..catalog.installers import INSTALLERS

    return GpuSoftware.model_validate({"installer": next(iter(INSTALLERS))})


def _at_or_under(path: str, ancestor: str) -> bool:
    return path == ancestor or path.startswith((ancestor + ".", ancestor + "["))


def well_formed_part(values: dict[str, Any]) -> PartialConfig | None:
    """The sections and pools that validate once their malformed parts are left out; None when the cloud is
    unusable (every rule depends on it). Unusable GPU software is stood in for by defaults, left out."""
    left_out: list[Location] = []
    cloud = values.get("cloud")
    software = _valid(GpuSoftware, values.get("gpuSoftware"), ("gpuSoftware",), left_out)
    if cloud not in cloud_names():
        return None
    if software is None:  # a stand-in, so a missing or broken section does not hide the pools' problems
        software = _stand_in_software()
        left_out.append(("gpuSoftware",))
    pools, sizes, tags = values.get("gpuPools"), values.get("customSizes"), values.get("tags")
    custom = {
        name: _valid(CustomSize, size, ("customSizes", name), left_out)
        for name, size in (sizes.items() if isinstance(sizes, dict) else ())
    }
    config = StackConfig.model_construct(
        cloud=cloud,
        cluster=_valid(ClusterConfig, values.get("cluster"), ("cluster",), left_out),
        gpu_pools=[_valid(GpuPoolConfig, pool, ("gpuPools", index), left_out) for index, pool in enumerate(pools)]
        if isinstance(pools, list)
        else [],
        gpu_software=software,
        custom_sizes={name: size for name, size in custom.items() if size is not None},
        tags=_valid_tags(tags, left_out),
    )
    return PartialConfig(config, tuple(left_out))


def _valid(model: type[pydantic.BaseModel], value: Any, location: Location, left_out: list[Location]) -> Any:
    cleaned = _cleaned(model, value, location, left_out)
    return model.model_validate(cleaned) if cleaned is not None else None


def _cleaned(
    model: type[pydantic.BaseModel], value: Any, location: Location, left_out: list[Location]
) -> dict[str, Any] | None:
    """``value`` without unknown keys and malformed optional fields, so it validates as ``model``; or None."""
    if not isinstance(value, dict):
        return None
    fields = {info.alias or name: info for name, info in model.model_fields.items()}
    cleaned: dict[str, Any] = {}
    for key, item in value.items():
        if key not in fields:  # reported as unknown; the key it was probably meant to be is left out
            meant = next(iter(closest(str(key), fields)), None)
            if meant is not None:
                left_out.append(location + (meant,))
            continue
        nested = _mapping_model(fields[key].annotation)
        if nested is not None and item is not None:
            item = _cleaned(nested, item, location + (key,), left_out)
            if item is None:  # a malformed mig, sharing or autoscaling changes what the pool is: drop the pool
                return None
        cleaned[key] = item
    while True:
        try:
            model.model_validate(cleaned)
            return cleaned
        except pydantic.ValidationError as error:
            bad = {item["loc"][0] if item["loc"] else None for item in error.errors(include_url=False)}
            for key in bad:
                info = fields.get(key) if isinstance(key, str) else None
                if (
                    not isinstance(key, str)
                    or key not in cleaned  # made by a before-validator from another key (a reservation mapping)
                    or info is None
                    or info.is_required()
                    or _mapping_model(info.annotation) is not None
                ):
                    return None
                del cleaned[key]
                left_out.append(location + (key,))


def _mapping_model(annotation: Any) -> type[pydantic.BaseModel] | None:
    """The model of a field that holds one mapping (``Model`` or ``Model | None``), else None."""
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return annotation
    if typing.get_origin(annotation) in (Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(members) == 1:
            return _mapping_model(members[0])
    return None


class _Tags(Strict):
    """``StackConfig.tags`` on its own, with the same checks (strict ``str`` to ``str``, no control characters)."""

    tags: dict[str, str] = pydantic.Field(default_factory=dict)


def _valid_tags(tags: Any, left_out: list[Location]) -> dict[str, str]:
    valid = _valid(_Tags, {"tags": tags}, (), left_out) if tags is not None else None
    return dict(valid.tags) if valid is not None else {}
