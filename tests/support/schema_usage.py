"""Checks a program's use of the component package against the package schema the provider serves, the way the
generated SDKs and Pulumi YAML would: the resource type exists, every property is one of its inputs (nested types
included), values have the schema's types and enum values, required inputs are given, a plain input gets no output,
and every output read exists. Each problem is one line naming where it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


@dataclass(frozen=True)
class Output:
    """A value that is another resource's output (or a config value) at run time; ``prop`` is its schema."""

    prop: dict[str, Any]
    text: str


def _type_problem(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind in ("integer", "number"):
        return True
    return not isinstance(value, _JSON_TYPES[kind])


def _kind(schema: dict[str, Any], prop: dict[str, Any]) -> str | None:
    """A property's JSON type, through a local ``$ref``."""
    if "type" in prop:
        return prop["type"]
    ref = prop.get("$ref", "")
    if ref.startswith("#/types/"):
        return schema["types"][ref.removeprefix("#/types/")].get("type")
    return None


def check_value(schema: dict[str, Any], prop: dict[str, Any], value: Any, where: str) -> list[str]:
    """Problems of one value against its property's schema."""
    if isinstance(value, Output):
        if prop.get("plain"):
            return [f"{where}: must be a plain value, not the output {value.text}"]
        mine, theirs = _kind(schema, prop), _kind(schema, value.prop)
        if mine and theirs and mine != theirs:
            return [f"{where}: {value.text} is {theirs}, the input takes {mine}"]
        return []
    ref = prop.get("$ref")
    if ref is not None:
        if not ref.startswith("#/types/"):
            return []  # another package's type: not this package's to check
        kind = schema["types"][ref.removeprefix("#/types/")]
        if "enum" in kind:
            allowed = [member["value"] for member in kind["enum"]]
            if value not in allowed:
                return [f"{where}: {value!r} is not one of {', '.join(map(str, allowed))}"]
            return []
        return check_object(schema, kind, value, where)
    kind_name = prop.get("type")
    if kind_name is None:
        return []  # Any (e.g. chart values): the schema says nothing to check
    if _type_problem(value, kind_name):
        return [f"{where}: {value!r} is not a {kind_name}"]
    if kind_name == "array" and "items" in prop:
        return [
            problem
            for i, item in enumerate(value)
            for problem in check_value(schema, prop["items"], item, f"{where}[{i}]")
        ]
    if kind_name == "object" and "additionalProperties" in prop:
        extra = prop["additionalProperties"]
        return [
            problem for key, item in value.items() for problem in check_value(schema, extra, item, f"{where}.{key}")
        ]
    return []


def check_object(schema: dict[str, Any], kind: dict[str, Any], value: Any, where: str) -> list[str]:
    """Problems of an object value against an object type: unknown keys, missing required keys, and each value."""
    if not isinstance(value, dict):
        return [f"{where}: {value!r} is not an object"]
    properties = kind.get("properties", {})
    return _check_keys(schema, properties, kind.get("required", []), value, where)


def _check_keys(
    schema: dict[str, Any], properties: dict[str, Any], required: list[str], value: dict[str, Any], where: str
) -> list[str]:
    problems = [f"{where}: unknown property {key!r}" for key in value if key not in properties]
    problems += [f"{where}: the required property {key!r} is missing" for key in required if key not in value]
    for key, item in value.items():
        if key in properties:
            problems += check_value(schema, properties[key], item, f"{where}.{key}" if where else key)
    return problems


def check_resource(schema: dict[str, Any], token: str, inputs: dict[str, Any], where: str) -> list[str]:
    """Problems of one resource's inputs; an unknown type token is the only problem then."""
    resource = schema["resources"].get(token)
    if resource is None:
        return [f"{where}: {token} is not a resource of the package"]
    return _check_keys(schema, resource["inputProperties"], resource.get("requiredInputs", []), inputs, where)


def output_of(schema: dict[str, Any], token: str, name: str) -> dict[str, Any] | None:
    """The schema of output ``name`` of resource type ``token``, or None when it has no such output."""
    resource = schema["resources"].get(token)
    return None if resource is None else resource["properties"].get(name)
