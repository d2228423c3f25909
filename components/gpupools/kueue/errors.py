"""``KueueError``: the one refusal of this package, so a caller tells bad input from a bug."""

from __future__ import annotations

from ..errors import GpupoolsError


class KueueError(GpupoolsError, ValueError):
    """Quotas that Kueue would refuse or that could never be met: bad names, a resource no pool offers, too much."""
