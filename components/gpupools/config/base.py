"""What every stack config model shares: the ``Strict`` base (camelCase keys, unknown keys refused, no coercion,
no control characters) and the bounds and small rules that the models and the component args both read."""

from __future__ import annotations

import unicodedata
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator
from pydantic.alias_generators import to_camel

MigStrategy = Literal["none", "single", "mixed"]
Rotation = Literal["recreate", "surge"]
MAX_NODES_PER_POOL = 1000
# The most replicas a shared GPU (or MIG device) may be advertised as: an AKS pool's computed maxPods makes room for
# them, so a sharing edit never touches a field fixed at creation (domain/capacity.default_max_pods).
MAX_TIME_SLICING_REPLICAS = 64
MAX_MPS_REPLICAS = 48
# The most GPUs a per-GPU layout entry may name: no size holds more (resolve checks each size's own count).
MAX_GPUS_PER_NODE = 16


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
