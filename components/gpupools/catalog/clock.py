"""The plan's date: the one reading of the clock, so every dated fact is compared with the same day.

``SOURCE_DATE_EPOCH`` (reproducible-builds.org, "SOURCE_DATE_EPOCH": "The value MUST be an ASCII representation
of an integer with no fractional component ... the number of seconds since the Unix epoch") when it is set, so CI
and tests give the same bytes on every day; today's UTC date otherwise. Rules never read the clock: ``load_stack``
and the component checks call ``plan_date`` once and hand the date down.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime

from ..errors import GpupoolsError

VARIABLE = "SOURCE_DATE_EPOCH"
# ASCII digits only, at most 12 (year 33658): no sign, spaces, fractions or fullwidth digits.
_EPOCH = re.compile(r"[0-9]{1,12}")
# datetime's own limit is year 9999 (253402300799); past it the date cannot be represented.
_LATEST = 253402300799


class ClockError(GpupoolsError, ValueError):
    """A ``SOURCE_DATE_EPOCH`` that is not a number of seconds: one ``error:`` line, exit 2."""


@dataclass(frozen=True)
class PlanDate:
    """The date every dated fact is compared with, and where it came from (shown by ``plan``)."""

    day: date
    source: str  # "SOURCE_DATE_EPOCH" or "today (UTC)"

    def to_json(self) -> dict[str, str]:
        return {"date": self.day.isoformat(), "source": self.source}

    def line(self) -> str:
        return f"plan date: {self.day.isoformat()} ({self.source})"


def plan_date(environ: dict[str, str] | None = None) -> PlanDate:
    """``SOURCE_DATE_EPOCH``'s UTC date when set, else today's UTC date; ``ClockError`` when it is malformed."""
    value = (os.environ if environ is None else environ).get(VARIABLE)
    if value is None or value == "":
        return PlanDate(datetime.now(UTC).date(), "today (UTC)")
    if not _EPOCH.fullmatch(value) or int(value) > _LATEST:
        shown = value[:24].encode("ascii", "backslashreplace").decode("ascii")
        raise ClockError(
            f"{VARIABLE}={shown!r} is not a number of seconds since 1970-01-01 UTC; allowed: ASCII digits, "
            "e.g. 1795564800 (2026-11-25), or unset for today's date"
        )
    return PlanDate(datetime.fromtimestamp(int(value), UTC).date(), VARIABLE)
