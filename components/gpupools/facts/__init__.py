"""``gpupools catalog``: every pinned fact with its source, the date it was read, and its status on the plan's date."""

from .listing import Fact, pinned_facts

__all__ = ["Fact", "pinned_facts"]
