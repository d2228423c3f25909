"""The base plan of ``plan --base FILE``: untrusted JSON, read with the stack file's limits and checked by a schema.

The file may come from another branch, an artifact or an attacker's pull request, so it gets what a stack file
gets from the untrusted-input kit: a regular UTF-8 file of at most 1 MiB, nesting at most ``limits.MAX_DEPTH``
levels and ``limits.MAX_NODES`` values, no ``NaN``/``Infinity`` or huge numbers, and a pydantic schema of the fields the
capacity and cost diffs read (types and bounds). Every problem is one line naming ``--base`` and the field; the diff
then reads only checked values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from ..catalog.prices import CURRENCY, CURRENCY_CODE
from ..config.errors import ConfigError, Problem
from ..untrusted.files import FileRefused, read_text
from ..untrusted.limits import MAX_DEPTH, MAX_NODES
from ..untrusted.strict_json import JsonRefused, JsonTooLarge, strict_loads

MAX_POOLS = 1000
MAX_RESOURCES = 10_000
MAX_COUNT = 10**9  # nodes, GPUs and slices: far above any cloud's quota
MAX_PRICE = 1e12  # per hour or per month, in any currency: far above any bill

Text = Annotated[str, StringConstraints(max_length=253)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Price = Annotated[float, Field(ge=0, le=MAX_PRICE, allow_inf_nan=False)]


class _Model(BaseModel):
    # strict: "many" is not a count, 1.5 is not an int; extra fields are kept (the diff compares whole entries)
    model_config: ClassVar[ConfigDict] = ConfigDict(strict=True, extra="allow")


class PoolCapacity(_Model):
    pool: Text
    nodes: Count = 0
    gpusPerNode: Count = 0  # noqa: N815
    total: dict[Text, Count] = Field(default_factory=dict, max_length=1000)


class Resource(_Model):
    type: Text
    name: Annotated[str, StringConstraints(max_length=1000)] = ""
    parent: Annotated[str, StringConstraints(max_length=1000)] | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)


class PoolCost(_Model):
    pool: Text
    hourly: Price | None = None
    monthly: Price | None = None
    sliceHourly: dict[Text, Price] = Field(default_factory=dict, max_length=1000)  # noqa: N815


class Cost(_Model):
    currency: Annotated[str, StringConstraints(pattern=rf"^{CURRENCY_CODE.pattern}$")] = CURRENCY
    pools: list[PoolCost] = Field(default_factory=list, max_length=MAX_POOLS)


# What a base plan's DRA section names reaches the pull request's Markdown: names of the shape the driver and the
# stack file allow (``gpu``, ``mig``, ``1g.10gb+me``, a pool name), so no HTML or Markdown can ride along.
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9.+_-]{0,79}$"
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]


class DraDevice(_Model):
    kind: Name
    profile: Name | None = None
    perNode: Count  # noqa: N815
    memoryGB: Count | None = None  # noqa: N815


class GpuGroup(_Model):
    gpus: Annotated[int, Field(ge=1, le=64)]
    mix: dict[Name, Count] | None = Field(default=None, max_length=64)
    whole: Literal[True] | None = None


class GpuLayouts(_Model):
    """One pool's node, its GPUs cut per group (``gpupools plan --json``'s ``gpuLayouts``), drawn in the comment."""

    pool: Name
    size: Text = ""
    gpu: Name
    nodes: Count = 0
    layout: list[GpuGroup] = Field(max_length=64)


class BasePlan(_Model):
    stack: Text = "base"
    capacity: list[PoolCapacity] = Field(max_length=MAX_POOLS)
    resources: list[Resource] = Field(default_factory=list, max_length=MAX_RESOURCES)
    outputs: dict[str, Any] = Field(default_factory=dict)
    cost: Cost | None = None  # absent or null: a plan made without prices
    draDevices: dict[Name, list[DraDevice]] = Field(default_factory=dict, max_length=MAX_POOLS)  # noqa: N815
    gpuLayouts: list[GpuLayouts] = Field(default_factory=list, max_length=MAX_POOLS)  # noqa: N815


def read_base_plan(path: Path) -> dict[str, Any]:
    """The base plan as plain JSON values, checked; a ``ConfigError`` naming ``--base`` otherwise."""
    where = f"--base {path}"
    try:
        plan = strict_loads(read_text(path, "base plan"), max_depth=MAX_DEPTH, max_nodes=MAX_NODES)
    except FileRefused as error:
        raise ConfigError([Problem(where, error.message)]) from None
    except JsonTooLarge as error:
        raise ConfigError([Problem(where, str(error))]) from None
    except JsonRefused as error:
        raise ConfigError([Problem(where, f"is not a plan JSON (gpupools plan --json): {error}")]) from None
    try:
        BasePlan.model_validate(plan)
    except ValidationError as error:
        raise ConfigError(
            [
                Problem(where, f"{_location(item['loc'])}: {item['msg']}")
                for item in error.errors(include_url=False)[:20]
            ]
        ) from None
    return plan


def _location(parts: tuple[int | str, ...]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "the document"
