"""``check_args``: one model over a component's args, and pydantic's errors as one line per argument."""

from __future__ import annotations

import difflib
import re
from typing import Any, Mapping

import pydantic

from .fields import ComponentArgsError, _Args


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
    return args


def _problems(model: type[_Args], args: Mapping[str, Any], error: pydantic.ValidationError) -> list[str]:
    problems: list[str] = []
    for item in error.errors(include_url=False):
        path = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}"
            for part in item["loc"]
            if not (isinstance(part, str) and ("[" in part or part in ("str", "int", "float", "bool")))
        )
        if item["type"] == "extra_forbidden":
            key = str(item["loc"][-1])
            close = difflib.get_close_matches(_snake(key), list(model.model_fields), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(model.model_fields)}"
            line = f"{path}: unknown argument {key!r}{hint}"
        elif item["type"] == "missing":
            line = f"{path}: is required"
        elif item["type"] == "value_error" and not item["loc"]:
            line = "\n".join(f".{part}" for part in item["msg"].removeprefix("Value error, ").split("\n"))
        else:
            message = item["msg"].removeprefix("Value error, ")
            line = f"{path}: {message} (got {item.get('input')!r})"
        if line not in problems:
            problems.append(line)
    return problems


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
