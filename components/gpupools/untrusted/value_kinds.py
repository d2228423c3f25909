"""What a value a server sent (or a cache someone edited) may look like before gpupools writes or prints it: one
kind per value, each a shape and a length bound (docs/hostile-input.md lists them).

A region or a size is plain ASCII; a name (a list's source, why a region is not checked) is printable text without
control characters, bidirectional overrides, or the characters that make Markdown links, tables or HTML
(``[ ] | < > ` \\``); a price is a finite number above 0 and below ``MAX_PER_HOUR``. The empty string is never one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from ..errors import GpupoolsError

MAX_PER_HOUR = 10_000_000  # no node costs this much an hour in any currency Azure prices in


class ValueRefused(GpupoolsError, ValueError):
    """A value that is not the shape of its kind; the message names where it was and what is allowed."""


@dataclass(frozen=True)
class ValueKind:
    name: str
    shape: re.Pattern[str]
    max_length: int
    allowed: str  # what the shape allows, for the error line

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not a ``name``; None when it is."""
        if not isinstance(value, str) or not value:
            return f"is {'empty' if value == '' else type(value).__name__}; a {self.name} is {self.allowed}"
        if len(value) > self.max_length:
            return f"is {len(value)} characters; a {self.name} is at most {self.max_length}"
        if not self.shape.fullmatch(value):
            return f"{shown_prefix(value)} is not a {self.name} ({self.allowed})"
        return None

    def checked(self, value: Any, where: str) -> str:
        """``value`` when it is a ``name``; else a ``ValueRefused`` naming ``where``."""
        problem = self.problem(value)
        if problem is not None:
            raise ValueRefused(f"{where}: {problem}")
        return value


def shown_prefix(value: str) -> str:
    """The first characters of a refused value, escaped (``ascii``), so the error line itself stays safe."""
    return ascii(value[:40]) + ("..." if len(value) > 40 else "")


REGION = ValueKind("region", re.compile(r"[a-z0-9-]{2,40}"), 40, "2 to 40 lowercase letters, digits and '-'")
SIZE = ValueKind("size", re.compile(r"[A-Za-z0-9_.-]{1,80}"), 80, "1 to 80 letters, digits, '_', '.' and '-'")
CLOUD = ValueKind("cloud", re.compile(r"[a-z]{2,10}"), 10, "2 to 10 lowercase letters")
NAME = ValueKind(
    "name",
    re.compile(r"[^\[\]|<>`\\\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]{1,500}"),
    500,
    "1 to 500 printable characters, none of [ ] | < > ` \\",
)


def price_problem(value: Any) -> str | None:
    """Why ``value`` is not an hourly price; None when it is."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        return f"{value!r:.40} is not a price above 0 (a missing price is left out)"
    if value > MAX_PER_HOUR:
        return f"{value!r:.40} is above {MAX_PER_HOUR:,}, more than any node costs an hour"
    return None
