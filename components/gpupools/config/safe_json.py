"""JSON from outside (a base plan, an API server's answer) read strictly: no NaN or Infinity, no integer of more
than 30 digits (Python would spend quadratic time on a 5,000-digit one), no float beyond a double's range."""

from __future__ import annotations

import json
from typing import Any

MAX_INT_DIGITS = 30


def strict_loads(text: str) -> Any:
    """``json.loads`` with the bounds above; a ``ValueError`` names the offending number."""
    return json.loads(text, parse_constant=_refuse_constant, parse_int=_bounded_int, parse_float=_bounded_float)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _bounded_float(text: str) -> float:
    value = float(text)
    if len(text) > 50 or value in (float("inf"), float("-inf")):
        raise ValueError(f"a number outside the range of a double ({text[:20]}...)")
    return value
