"""Turning raw stack config into pydantic's input, and pydantic's errors into one ``Problem`` per field.

An unknown key is named with the key it was probably meant to be ("did you mean"). The well-formed part of a
malformed config, for the rules, is ``partial``.
"""

from __future__ import annotations

from typing import Any, Mapping, get_args, get_origin

import re

import pydantic

from ..untrusted.lookup import closest, did_you_mean
from .errors import NAMESPACE, Problem, field_path
from .models import StackConfig


def strip_namespace(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    if not isinstance(raw, Mapping):
        return values, [Problem(f"{NAMESPACE}:", f"config must be a mapping, got {type(raw).__name__}")]
    for key, value in raw.items():
        if not isinstance(key, str):  # never silently stringified: 1, None and True are not key names
            problems.append(Problem(f"{NAMESPACE}:", f"has the key {key!r}, which is not a string"))
            continue
        namespace, colon, name = key.partition(":")
        if not colon:
            values[key] = value
        elif namespace == NAMESPACE:
            values[name] = value
        # Other namespaces (azure-native:location, aws:region, ...) belong to providers, not to us.
    return values, problems


def shape_problems(error: pydantic.ValidationError) -> list[Problem]:
    """Pydantic's errors as one line per field; alternatives of a union are merged into one line."""
    merged: dict[str, list[str]] = {}
    given: dict[str, Any] = {}
    for item in _matching_member(error.errors(include_url=False)):
        loc = _user_location(item["loc"])
        path = field_path(*loc) if loc else f"{NAMESPACE}:"
        if item["type"] == "extra_forbidden":
            allowed, key = _allowed_keys(loc[:-1]), str(loc[-1])
            meant = next(iter(closest(key, allowed)), None)
            message = f"unknown key {key!r}" + (
                f"; did you mean {meant!r}?"
                if meant is not None
                else f"; allowed keys: {', '.join(allowed)}"
                if allowed
                else ""
            )
        elif item["type"] == "missing":
            message = "is required"
        else:
            message = item["msg"].removeprefix("Value error, ") + _quoted_number_hint(item) + choice_hint(item)
            given[path] = item.get("input")
        merged.setdefault(path, [])
        if message not in merged[path]:
            merged[path].append(message)
    return [
        Problem(
            path, " or ".join(messages) + (f" (got {given[path]!r})" if path in given and _short(given[path]) else "")
        )
        for path, messages in merged.items()
    ]


def _matching_member(items: list[Any]) -> list[Any]:
    """A union field's errors from the member the value's type matched, when one did (an error inside a list of
    entries, not "should be a string" beside it); every member's otherwise (``layout: 5``)."""
    chosen = {
        tuple(item["loc"][: index + 1]): item["loc"][index + 1]
        for item in items
        for index, part in enumerate(item["loc"])
        if part in _UNION_FIELDS and len(item["loc"]) > index + 2 and _is_member(item["loc"][index + 1])
    }

    def other_member(loc: tuple[Any, ...]) -> bool:
        return any(
            part in _UNION_FIELDS
            and len(loc) > index + 1
            and chosen.get(tuple(loc[: index + 1]), loc[index + 1]) != loc[index + 1]
            for index, part in enumerate(loc)
        )

    return [item for item in items if not other_member(tuple(item["loc"]))]


def _is_member(part: Any) -> bool:
    return isinstance(part, str) and (part == "str" or "[" in part)


def choice_hint(item: Any) -> str:
    """``installer: gpu-operater``: pydantic names the allowed values; add the one it was probably meant to be."""
    given = item.get("input")
    if item["type"] not in ("literal_error", "enum") or not isinstance(given, str):
        return ""
    allowed = re.findall(r"'([^']*)'", str((item.get("ctx") or {}).get("expected", "")))
    meant = did_you_mean(given, allowed)
    return f"; {meant.rstrip()}" if meant else ""


def _quoted_number_hint(item: Any) -> str:
    """``count: "2"``: a number written in quotes is text to YAML; say so rather than only pydantic's words."""
    given = item.get("input")
    if item["type"] not in ("int_type", "float_type", "int_parsing", "float_parsing") or not isinstance(given, str):
        return ""
    try:
        float(given.strip())
    except ValueError:
        return ""
    return " (a number in quotes is text in YAML: remove the quotes)"


def _user_location(loc: tuple[str | int, ...]) -> list[str | int]:
    """The error location as the user wrote it, without the member names pydantic adds after a union field."""
    parts: list[str | int] = []
    for part in loc:
        if parts and parts[-1] in _UNION_FIELDS and _is_member(part):
            continue
        parts.append(part)
    return parts


# Fields whose type is a union of plain types; pydantic names the member ('str', 'dict[str,int]') in locations.
_UNION_FIELDS = frozenset({"layout"})


def _short(value: Any) -> bool:
    """Scalars are echoed (long ones are cut where the problem is printed); whole sections are not."""
    return not isinstance(value, (dict, list))


def _allowed_keys(loc: list[str | int]) -> list[str]:
    """The camelCase keys a mapping at ``loc`` accepts, for 'unknown key' messages."""
    model: Any = StackConfig
    parts = iter(loc)
    for part in parts:
        if isinstance(part, int):
            continue
        fields = {info.alias or name: info for name, info in model.model_fields.items()}
        if part not in fields:
            return []
        annotation = fields[part].annotation
        model = _model_in(annotation)
        if model is None:
            return []
        if get_origin(annotation) is dict:
            next(parts, None)  # the user's own key, e.g. a size name under customSizes
    return sorted(info.alias or name for name, info in model.model_fields.items())


def _model_in(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return annotation
    if get_origin(annotation) is not None or get_args(annotation):
        for arg in get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None
