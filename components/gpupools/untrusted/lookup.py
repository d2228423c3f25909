"""The one "did you mean": the known name a user's unknown one was probably meant to be.

Every lookup of a name a user typed (a config key, a region, a size, a MIG profile, a cloud, an installer, a
stack) that fails names its closest match from here, so the same typo gets the same answer in ``check``, ``plan``,
``fit``, ``sizes`` and the components. The name is untrusted: it is cut before it is compared (``difflib`` takes
time in the product of the two lengths), and an unknown name far longer than every known one gets no match.
"""

from __future__ import annotations

import difflib
from typing import Iterable

MAX_COMPARED_CHARS = 100  # longer than any name gpupools knows; beyond it a name is not a typo of one


def closest(given: str, known: Iterable[str], count: int = 1, cutoff: float = 0.6) -> tuple[str, ...]:
    """Up to ``count`` known names ``given`` was probably meant to be, best first: the same name in another case or
    spelling (``os_sku``, ``OsSku`` for ``osSku``), else the closest by ``difflib``'s ratio above ``cutoff``."""
    names = list(dict.fromkeys(str(name) for name in known))
    if not given or len(given) > MAX_COMPARED_CHARS or not names:
        return ()
    spelled = {_fold(name): name for name in names}
    same = spelled.get(_fold(given))
    if same is not None and same != given:
        return (same,)
    return tuple(name for _, name in _ranked(given, names, cutoff)[:count])


def _ranked(given: str, names: list[str], cutoff: float) -> list[tuple[float, str]]:
    """``(ratio, name)`` above ``cutoff``, best first and ties by name (``difflib.get_close_matches`` breaks
    ties by the larger name: ``us-west-1`` before ``us-east-1`` for ``us-est-1``)."""
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(given.lower())
    scored = []
    for name in names:
        matcher.set_seq1(name.lower())
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff and matcher.ratio() >= cutoff:
            scored.append((matcher.ratio(), name))
    return sorted(scored, key=lambda item: (-item[0], item[1]))


def _fold(name: str) -> str:
    """A name without case, ``-`` or ``_``: ``os_sku``, ``OsSku`` and ``os-sku`` are one spelling of ``osSku``."""
    return name.replace("-", "").replace("_", "").lower()


def did_you_mean(given: str, known: Iterable[str], cutoff: float = 0.6) -> str:
    """``"did you mean 'x'? "`` for the closest known name (names as close as it, up to three, joined by "or"),
    or ``""``: the phrase every such message uses."""
    names = list(dict.fromkeys(str(name) for name in known))
    found = closest(given, names, count=3, cutoff=cutoff)
    if not found:
        return ""
    ranked = dict((name, ratio) for ratio, name in _ranked(given, names, cutoff))
    tied = [name for name in found if ranked.get(name) == ranked.get(found[0])]
    return f"did you mean {' or '.join(repr(name) for name in tied)}? "
