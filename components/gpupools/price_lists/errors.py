"""One error type for a price list that cannot be read: unreachable, malformed or truncated."""

from ..errors import GpupoolsError


class PriceSourceError(GpupoolsError):
    """A price list that cannot be used; the message is one line naming the source and what is wrong."""
