"""A pool's name in the cloud: the config name, or for ``surge`` pools the config name plus its generation.

The generation is a short hash of the values fixed at creation, so a new generation gets a new name and can be
created before the old one is deleted. Pure string arithmetic: the same inputs give the same name everywhere.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

from ..catalog.cloud import PoolNaming
from ..catalog.cloud_registry import cloud as cloud_named

SUFFIX_LENGTH = 5
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def generation(pool_name: str, fixed: Mapping[str, Any]) -> str:
    """``SUFFIX_LENGTH`` base-36 characters from a SHA-256 of the config name and the fixed fields (None dropped)."""
    document = json.dumps(
        {"pool": pool_name, "fixed": {k: v for k, v in fixed.items() if v is not None}},
        sort_keys=True,
        separators=(",", ":"),
    )
    number = int.from_bytes(hashlib.sha256(document.encode()).digest()[:8], "big")
    digits = []
    for _ in range(SUFFIX_LENGTH):
        number, digit = divmod(number, len(_ALPHABET))
        digits.append(_ALPHABET[digit])
    return "".join(digits)


def cloud_pool_name(cloud: str, pool_name: str, suffix: str | None) -> str:
    """The pool's name in the cloud: the config name, or (surge) its prefix that leaves room for the suffix."""
    if suffix is None:
        return pool_name
    naming = cloud_named(cloud).facet(PoolNaming)
    prefix = pool_name[: naming.max_length - len(naming.separator) - len(suffix)].rstrip("-")
    return f"{prefix}{naming.separator}{suffix}"
