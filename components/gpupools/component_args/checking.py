"""``check_args``: one model over a component's args, and pydantic's errors as one line per argument."""

from __future__ import annotations

import re
import reprlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Mapping

import pydantic

from ..untrusted.limits import MAX_DEPTH, MAX_NODES
from .fields import ComponentArgsError, _Args, is_deferred
from ..untrusted.lookup import closest


def check_args(
    model: type[_Args], component: str, name: Any, args: Any, context: Mapping[str, Any] | None = None
) -> Any:
    """``args`` unchanged when ``model`` accepts them, else ``ComponentArgsError`` with one line per problem."""
    if not isinstance(name, str) or not name:
        raise ComponentArgsError(component, str(name), [f": the resource name must be a non-empty str, got {name!r}"])
    if not isinstance(args, Mapping):
        raise ComponentArgsError(
            component,
            name,
            [f": expected a dict of arguments ({', '.join(model.model_fields)}), got {type(args).__name__}"],
        )
    try:
        model.model_validate(dict(args), context=dict(context or {}))
    except pydantic.ValidationError as error:
        raise ComponentArgsError(component, name, _problems(model, args, error)) from None
    return _checked_when_resolved(model, component, name, args, context)


def _checked_when_resolved(
    model: type[_Args], component: str, name: str, args: Mapping[str, Any], context: Mapping[str, Any] | None
) -> Any:
    """``args`` with each Pulumi output in them, top-level or nested in a list or dict, replaced by one that resolves
    only once the whole arg has resolved and passed the same model (the other args as given), failing with the
    field's name: the resources built from it fail the deployment instead of registering ``count=-1``. A secret
    stays secret, and its value is never quoted. Errors name fields as ``error_field_names`` says when the check
    was made (the provider asks for its schema's names)."""
    outputs = [key for key, value in args.items() if holds_outputs(value)]
    if not outputs:
        return args
    from .when_resolved import checked_once_resolved  # loads the SDK's internals: only for args holding outputs

    rename = _FIELD_NAMES.get()

    def checker(key: str) -> Any:
        def check(resolved: Any) -> Any:
            if resolved is None or holds_outputs(resolved):
                return resolved
            try:
                model.model_validate({**args, key: resolved}, context=dict(context or {}))
            except pydantic.ValidationError as error:
                problems = [_unquoted(line, resolved) for line in _problems(model, args, error, quote_values=False)]
                failed = ComponentArgsError(component, name, [f"{line} (once resolved)" for line in problems])
                failed.args = (rename(str(failed)),)
                raise failed from None
            return resolved

        return check

    return {**args, **{key: checked_once_resolved(args[key], checker(key)) for key in outputs}}


_FIELD_NAMES: ContextVar[Callable[[str], str]] = ContextVar("gpupools_field_names", default=lambda text: text)


@contextmanager
def error_field_names(rename: Callable[[str], str]) -> Iterator[None]:
    """Within the block, errors of output args once resolved are passed through ``rename`` (the provider's schema
    names for ``args.node_labels``); the checks made in it keep it even when they run later."""
    token = _FIELD_NAMES.set(rename)
    try:
        yield
    finally:
        _FIELD_NAMES.reset(token)


def holds_outputs(value: Any, max_depth: int = MAX_DEPTH) -> bool:
    """Whether ``value`` is a Pulumi output or holds one in its lists, tuples and dicts (to ``max_depth``)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if is_deferred(item) and callable(getattr(item, "apply", None)):
            return True
        if depth < max_depth and isinstance(item, Mapping):
            stack.extend((child, depth + 1) for child in item.values())
        elif depth < max_depth and isinstance(item, (list, tuple)):
            stack.extend((child, depth + 1) for child in item)
    return False


def _problems(
    model: type[_Args], args: Mapping[str, Any], error: pydantic.ValidationError, quote_values: bool = True
) -> list[str]:
    problems: list[str] = []
    for item in error.errors(include_url=False):
        path = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}"
            for part in item["loc"]
            if not (isinstance(part, str) and ("[" in part or part in ("str", "int", "float", "bool")))
        )
        if item["type"] == "extra_forbidden":
            key = str(item["loc"][-1])
            close = closest(_snake(key), model.model_fields)
            hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(model.model_fields)}"
            line = f"{path}: unknown argument {key!r}{hint}"
        elif item["type"] == "missing":
            line = f"{path}: is required"
        elif item["type"] == "value_error" and not item["loc"]:
            line = "\n".join(f".{part}" for part in item["msg"].removeprefix("Value error, ").split("\n"))
        else:
            message = item["msg"].removeprefix("Value error, ")
            line = f"{path}: {message} (got {echo(item.get('input'))})" if quote_values else f"{path}: {message}"
        if line not in problems:
            problems.append(line)
    if len(problems) > MAX_PROBLEMS:  # 10,000 bad subnets are one mistake, not 10,000 lines
        problems[MAX_PROBLEMS:] = [f": {len(problems) - MAX_PROBLEMS} more problems like these, not shown"]
    return problems


MAX_PROBLEMS = 20
_ECHO = reprlib.Repr()
_ECHO.maxlevel, _ECHO.maxstring, _ECHO.maxother = 3, 80, 80
_ECHO.maxlist = _ECHO.maxtuple = _ECHO.maxdict = _ECHO.maxset = 6


def echo(value: Any) -> str:
    """``value`` as an error may quote it: a few levels, items and characters (a list of 10,000 subnets or a dict
    that holds itself is not printed whole), with how many items there were when some are left out."""
    text = _ECHO.repr(value)
    if isinstance(value, (list, tuple, dict, set)) and len(value) > 6:
        text += f" ({len(value)} items, {len(value) - 6} not shown)"
    return text


def _unquoted(line: str, value: Any) -> str:
    """``line`` without the value's text, nor any text in it: an output may be secret, and whether it is cannot be
    known here. A text item is removed where it is quoted, so a short one does not cut words of the message."""
    texts = {repr(value), str(value)}
    stack, seen = [value], 0
    while stack and seen < MAX_NODES:
        item, seen = stack.pop(), seen + 1
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, str):
            texts |= {repr(item), f"'{item[:80]}'", f'"{item[:80]}"'}
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            texts.add(repr(item))
    for text in sorted(texts, key=len, reverse=True):
        if len(text) >= 3:
            line = line.replace(text, "[the value]")
    return line


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
