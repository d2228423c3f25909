"""``check_args``: one model over a component's args, and pydantic's errors as one line per argument."""

from __future__ import annotations

import difflib
import re
import reprlib
from typing import Any, Mapping

import pydantic

from .fields import ComponentArgsError, _Args, is_deferred


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
    """``args`` with each top-level Pulumi output replaced by one that, once it resolves, is checked by the same
    model (the other args as given) and fails with the field's name: the resources built from it fail the
    deployment instead of registering ``count=-1``. A secret stays secret, and its value is never quoted."""
    outputs = [key for key, value in args.items() if is_deferred(value) and callable(getattr(value, "apply", None))]
    if not outputs:
        return args

    def checker(key: str) -> Any:
        def check(resolved: Any) -> Any:
            if resolved is None or is_deferred(resolved):
                return resolved
            try:
                model.model_validate({**args, key: resolved}, context=dict(context or {}))
            except pydantic.ValidationError as error:
                problems = [_unquoted(line, resolved) for line in _problems(model, args, error, quote_values=False)]
                raise ComponentArgsError(component, name, [f"{line} (once resolved)" for line in problems]) from None
            return resolved

        return check

    return {**args, **{key: args[key].apply(checker(key)) for key in outputs}}


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
            close = difflib.get_close_matches(_snake(key), list(model.model_fields), n=1)
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
    """``line`` without the value's text: an output may be secret, and whether it is cannot be known here."""
    for text in {repr(value), str(value)}:
        if len(text) >= 3:
            line = line.replace(text, "[the value]")
    return line


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
