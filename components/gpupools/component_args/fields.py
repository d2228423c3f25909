"""Field types shared by the component argument models: plain values checked, Pulumi outputs let through.

Bounds and enums come from the stack config (``config.models``) and name rules from ``config.names``, so
a component and the stack file accept the same values. Pure: imports no Pulumi.
"""

from __future__ import annotations

import inspect
import ipaddress
import math
import re
from typing import Annotated, Any, ClassVar, Literal, Mapping, TypeAlias

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, GetCoreSchemaHandler, WrapValidator
from pydantic_core import CoreSchema

from ..config import models as config
from ..catalog import cloud_syntax, names
from ..errors import GpupoolsError
from ..untrusted.limits import MAX_DEPTH, MAX_NODES


class ComponentArgsError(GpupoolsError, TypeError, ValueError):
    """Bad component arguments; ``str()`` is one line per problem: ``<Component>(<name>) args.<key>: ...``."""

    def __init__(self, component: str, name: str, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(f"{component}({name!r}) args{problem}" for problem in problems))


# Values that are never deferred, told apart by their exact type before the costlier checks (every field of every
# component's args passes here, and ``isawaitable`` asks an ABC).
_PLAIN_TYPES = frozenset({str, int, float, bool, type(None), dict, list, tuple})


def is_deferred(value: Any) -> bool:
    """A Pulumi value whose content is not ours to check now: an Output, a resource, an awaitable."""
    if type(value) in _PLAIN_TYPES:
        return False
    module = type(value).__module__ or ""
    return module == "pulumi" or module.startswith(("pulumi.", "pulumi_")) or inspect.isawaitable(value)


def _let_deferred_through(value: Any, handler: Any) -> Any:
    return value if is_deferred(value) else handler(value)


class Rule:
    """``Annotated[T, Rule(annotation)]``: a type checker reads ``T``; pydantic checks with ``annotation`` alone.

    The helpers below build their checks as pydantic types from the stack config's rules at run time, which no type
    checker can read; a field declares its plain type ``T`` and puts the helper's result here, so the rule stays in
    the helper and the schema is exactly the helper's."""

    def __init__(self, annotation: Any) -> None:
        self.annotation = annotation

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return handler.generate_schema(self.annotation)


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


def _size(cloud: str) -> Any:
    """A node size spelled as ``cloud`` spells them (the config's rule: ``cloud_syntax.size_name_problem``)."""
    return _input(_checked(lambda value: cloud_syntax.size_name_problem(cloud, value)))


def _labels_but_ours(ours: frozenset[str], problem: Any) -> Any:
    """Node labels: Kubernetes syntax, and no reserved domain but for the labels gpupools sets itself (``problem``:
    ``resolve.pool_rules.reserved_label_problem``)."""

    def check(labels: Any) -> Any:
        if isinstance(labels, Mapping):
            found = [f"{key!r}: {why}" for key in labels if isinstance(key, str) for why in [problem(key, ours)] if why]
            if found:
                raise ValueError("; ".join(found))
        return labels

    return _input(Annotated[Labels, AfterValidator(check)])


def json_shape_problem(value: Any, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> str | None:
    """Why ``value`` (chart values) is not a JSON document Helm can take: a key that is not text, a value of
    another type, a number that is not finite, deeper than ``max_depth`` (a dict holding itself is found so) or
    more than ``max_nodes`` values. Walked without recursion; Pulumi outputs pass as leaves."""
    stack, nodes = [(value, "", 1)], 0
    while stack:
        item, where, depth = stack.pop()
        nodes += 1
        if nodes > max_nodes:
            return f"more than {max_nodes} values"
        if depth > max_depth:
            return f"{where or 'values'}: nests deeper than {max_depth} levels (or holds itself)"
        if isinstance(item, Mapping):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"{where}: key {key!r:.40} is {type(key).__name__}, not text"
                stack.append((child, f"{where}.{key[:40]}", depth + 1))
        elif isinstance(item, (list, tuple)):
            stack.extend((child, f"{where}[{index}]", depth + 1) for index, child in enumerate(item))
        elif isinstance(item, float) and not math.isfinite(item):
            return f"{where}: {item} is not a finite number"
        elif not (item is None or isinstance(item, (str, int, float, bool)) or is_deferred(item)):
            return f"{where}: a {type(item).__name__} is not a JSON value"
    return None


def _json_document(value: Any) -> Any:
    why = json_shape_problem(value)
    if why:
        raise ValueError(why)
    return value


JsonValues: TypeAlias = Annotated[
    dict[str, Any], Rule(_input(Annotated[dict[str, Any], AfterValidator(_json_document)]))
]


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


Tags: TypeAlias = Annotated[dict[str, str], Rule(_input(dict[str, _input(str)]))]


def _tag_problems(cloud: str, tags: Any, limit: int = names.MAX_TAGS, why: str = "") -> list[str]:
    """The cloud's tag rules over a plain tag map (nothing to check while it is a Pulumi output)."""
    if not isinstance(tags, Mapping) or any(is_deferred(v) for v in tags.values()):
        return []
    problems = [
        f"{key!r}: {message}" for key, message in cloud_syntax.tag_problems(cloud, dict(tags)) if key is not None
    ]
    if len(tags) > limit:
        problems.append(f"{len(tags)} tags; at most {limit}{why}")
    return problems


Labels: TypeAlias = Annotated[
    dict[str, str],
    Rule(_input(dict[_input(_checked(names.label_key_problem)), _input(_checked(names.label_value_problem))])),
]
Count: TypeAlias = Annotated[int, Rule(_input(Annotated[int, Field(ge=0, le=config.MAX_NODES_PER_POOL)]))]
MaxPods: TypeAlias = Annotated[int | None, Rule(_like(config.GpuPoolConfig, "max_pods"))]
TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class _Args(BaseModel):
    """Component arguments: the TypedDict's snake_case keys, no coercion (``count='3'`` is not a count).

    ``defer_build``: a model's validator is built on its first check, not on import, so a stack on one cloud never
    builds the other cloud's models (``component_args`` imports them all).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(
        extra="forbid", strict=True, frozen=True, arbitrary_types_allowed=True, defer_build=True
    )
