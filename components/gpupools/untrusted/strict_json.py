"""JSON from outside (a base plan, an API server's or a price list's answer, a cache file, an environment variable)
read strictly: no NaN or Infinity, no integer of more than 30 digits (Python would spend quadratic time on a
5,000-digit one), no float beyond a double's range, nesting within ``MAX_DEPTH`` and, when asked, at most
``max_nodes`` values. This is the package's only JSON reader; a test fails on ``json.loads`` anywhere else.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import GpupoolsError
from .limits import MAX_DEPTH, MAX_INT_DIGITS


class JsonRefused(GpupoolsError, ValueError):
    """Not JSON, or JSON outside the bounds; the message names the offending number or the limit."""


class JsonNotText(JsonRefused):
    """Bytes that are not UTF-8 text."""


class JsonTooLarge(JsonRefused):
    """Valid JSON nested deeper or holding more values than the reader allows."""


def strict_loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, max_nodes: int | None = None) -> Any:
    """``json.loads`` with the bounds above (bytes must be UTF-8); a ``JsonRefused`` says what is wrong."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_bounded_int, parse_float=_bounded_float)
    except UnicodeDecodeError:
        raise JsonNotText("is not UTF-8 text") from None
    except RecursionError:
        raise JsonTooLarge(f"nests deeper than {max_depth} levels") from None
    except JsonRefused:
        raise
    except ValueError as error:  # json.JSONDecodeError, with the line and column
        raise JsonRefused(str(error)) from None
    if isinstance(value, (dict, list)):
        _check_size(value, max_depth, max_nodes)
    return value


def strict_decoder() -> json.JSONDecoder:
    """A decoder with the number rules above, for a reader that decodes a document piece by piece."""
    return json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_bounded_int, parse_float=_bounded_float)


def check_size(value: Any, max_depth: int = MAX_DEPTH, max_nodes: int | None = None) -> None:
    """The depth and value-count bounds of ``strict_loads`` on a decoded value."""
    if isinstance(value, (dict, list)):
        _check_size(value, max_depth, max_nodes)


def _check_size(document: dict[str, Any] | list[Any], max_depth: int, max_nodes: int | None) -> None:
    """Depth (the document is level 1) and value count, iteratively: no recursion on a deep document."""
    stack, nodes = [(document, 1)], 1
    while stack:
        value, depth = stack.pop()
        children = list(value.values()) if isinstance(value, dict) else value
        if not children:
            continue
        if depth >= max_depth:
            raise JsonTooLarge(f"nests deeper than {max_depth} levels")
        nodes += len(children)
        if max_nodes is not None and nodes > max_nodes:
            raise JsonTooLarge(f"holds more than {max_nodes} values")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def _refuse_constant(name: str) -> Any:
    raise JsonRefused(f"{name} is not a JSON number")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonRefused(f"a number of {len(text)} digits")
    return int(text)


def _bounded_float(text: str) -> float:
    value = float(text)
    if len(text) > 50 or value in (float("inf"), float("-inf")):
        raise JsonRefused(f"a number outside the range of a double ({text[:20]}...)")
    return value
