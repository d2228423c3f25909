"""A validated ``Stack`` handed down to the code that would validate the very same config again.

``gpupools plan`` validates the stack file, then runs the stack program, which validates its config once more
(under ``pulumi up`` nothing else has). That config is the plan's, passed through Pulumi's config as JSON text,
so the second validation can only repeat the first: while the plan runs the program, ``load_stack`` returns the
plan's ``Stack`` for a config equal to it. Equal means the same ``exact_key``: same types (``1`` is not ``1.0``
nor ``True``, a list is not a tuple), same values and the same key order, since any of them can change what
validation says. Anything else, and everything outside the block, is validated as usual.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

from ..domain.stack import Stack

_SCALARS = (str, int, float, bool, type(None))
_lock = threading.Lock()
_handed: dict[Hashable, Stack] = {}


def exact_key(value: Any) -> Hashable | None:
    """A hashable key equal for two configs exactly when they are the same data; None for anything but JSON-like
    data (dicts with str keys, lists, tuples, str, int, float, bool, None), which is never handed down."""
    kind = type(value)
    if kind in _SCALARS:
        return (kind, repr(value) if kind is float else value)  # repr: -0.0 is not 0.0
    if kind is dict:
        items = []
        for key, item in value.items():
            frozen = exact_key(item) if type(key) is str else None
            if frozen is None:
                return None
            items.append((key, frozen))
        return (dict, tuple(items))
    if kind is list or kind is tuple:
        frozen_items = tuple(exact_key(item) for item in value)
        return None if any(item is None for item in frozen_items) else (kind, frozen_items)
    return None


def handed_down(key: Hashable | None) -> Stack | None:
    """The Stack handed down for a config with this key, if one is."""
    if key is None:
        return None
    with _lock:
        return _handed.get(key)


@contextmanager
def hand_down(key: Hashable | None, stack: Stack) -> Iterator[Stack]:
    """``stack`` is what ``load_stack`` returns, inside the block, for a config with ``key``."""
    if key is None:
        yield stack
        return
    with _lock:
        _handed[key] = stack
    try:
        yield stack
    finally:
        with _lock:
            if _handed.get(key) is stack:
                del _handed[key]
