"""The argument models' fields say to a type checker what pydantic checks: in each ``Annotated[T, Rule(rule)]`` the
declared ``T`` has the shape of the helper-built ``rule`` (same containers, same leaf types, ``None`` aside), so an
IDE user is never told ``int`` where the component takes a ``str``. Literal values count as their type."""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Literal, Union

import pytest
from pydantic import BaseModel

import gpupools.component_args as component_args
from gpupools.component_args.fields import Rule

MODELS = [
    model
    for name in component_args.__all__
    if isinstance(model := getattr(component_args, name), type) and issubclass(model, BaseModel)
]


def _shape(annotation: Any) -> frozenset[Any]:
    """Containers and leaf types of an annotation, with Annotated metadata and None dropped."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _shape(typing.get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return frozenset().union(*(_shape(arg) for arg in typing.get_args(annotation) if arg is not type(None)))
    if origin is Literal:
        return frozenset(("leaf", type(value)) for value in typing.get_args(annotation))
    if origin is not None:
        return frozenset({(origin, tuple(_shape(arg) for arg in typing.get_args(annotation)))})
    return frozenset({("leaf", annotation)})


def _rules(annotation: Any) -> list[tuple[Any, Rule]]:
    """Each ``(T, Rule)`` pair inside a field's annotation (under Optional, or in an alias such as ``Tags``)."""
    found: list[tuple[Any, Rule]] = []
    if typing.get_origin(annotation) is Annotated:
        declared, *metadata = typing.get_args(annotation)
        found += [(declared, rule) for rule in metadata if isinstance(rule, Rule)]
        return found + _rules(declared)
    for arg in typing.get_args(annotation):
        found += _rules(arg)
    return found


def _pairs(model: type[BaseModel]) -> list[tuple[str, Any, Rule]]:
    hints = typing.get_type_hints(model, include_extras=True)
    return [(field, declared, rule) for field in model.model_fields for declared, rule in _rules(hints[field])]


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_declared_type_is_the_checked_type(model: type[BaseModel]) -> None:
    pairs = _pairs(model)
    assert pairs, f"{model.__name__} has no Rule-checked field"
    wrong = [
        f"{field}: declared {declared!r}, checked {rule.annotation!r}"
        for field, declared, rule in pairs
        if declared is not Any and _shape(declared) != _shape(rule.annotation)
    ]
    assert not wrong, "\n".join(wrong)


def test_shape_tells_types_apart() -> None:
    assert _shape(Annotated[list[str], "x"]) == _shape(list[Literal["1", "2"]] | None)
    assert _shape(str) != _shape(int)
    assert _shape(dict[str, str]) != _shape(dict[str, list[str]])
