"""Args that hold Pulumi outputs, checked by the same model once they resolve (issue 25).

An output nested in a list or dict arg (``subnet_ids=[subnet.id, ...]``, ``labels={key: output}``) is handed on as
an output that resolves only once the whole arg has resolved and passed the check, so the resources built from it
fail the deployment instead of registering a bad value. The arg keeps its shape (a list stays a list of the same
length, a dict keeps its keys): the components iterate it and the SDK serialises it as before. Each item keeps its
own dependencies and secretness (``pulumi_internals.output_after``). Imported only when an arg holds an output.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pulumi

from ..pulumi_internals import output_after


def checked_once_resolved(value: Any, check: Callable[[Any], Any]) -> Any:
    """``value`` (an output, or a list or dict holding outputs) whose outputs resolve only after ``check`` has
    passed on the whole value resolved; ``check`` raising fails each of them."""
    if isinstance(value, pulumi.Output):
        return value.apply(check)
    gate = pulumi.Output.from_input(value).apply(check)
    return _rebuilt(value, lambda leaf: output_after(leaf, gate))


def _rebuilt(value: Any, replace: Callable[[pulumi.Output[Any]], Any]) -> Any:
    """``value`` with each output in its lists, tuples and dicts replaced (its depth was bounded by the check)."""
    if isinstance(value, pulumi.Output):
        return replace(value)
    if isinstance(value, Mapping):
        return {key: _rebuilt(item, replace) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_rebuilt(item, replace) for item in value)
    return value
