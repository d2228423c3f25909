"""Per-cloud syntax checks read from the cloud object: node size names and resource tags (the config's rules and
the component args call the same functions)."""

from __future__ import annotations

from .cloud import SizeNaming, TagRules
from .cloud_registry import cloud as cloud_named
from .names import MAX_TAGS


def size_name_problem(cloud: str, name: str) -> str | None:
    """Why ``name`` is not spelled like a node size of ``cloud`` (an Azure size on EKS, a newline, a Cyrillic 'а')."""
    naming = cloud_named(cloud).facet(SizeNaming)
    if naming.pattern.fullmatch(name):
        return None
    return f"{name[:80]!r} is not {naming.allowed}"


def tag_problems(cloud: str, tags: dict[str, str]) -> list[tuple[str | None, str]]:
    """(tag key or None for the whole map, why) for each way ``tags`` breaks the cloud's tag rules."""
    rules = cloud_named(cloud).facet(TagRules)
    problems: list[tuple[str | None, str]] = []
    if len(tags) > MAX_TAGS:
        problems.append((None, f"{len(tags)} tags; {cloud} allows at most {MAX_TAGS} per resource"))
    for key, value in tags.items():
        if not key:
            problems.append((key, "an empty tag key is refused"))
        if len(key) > rules.key_max:
            problems.append((key, f"key has {len(key)} characters; {cloud} allows at most {rules.key_max}"))
        if len(value) > rules.value_max:
            problems.append((key, f"value has {len(value)} characters; {cloud} allows at most {rules.value_max}"))
        problems += [(key, why) for why in rules.key_problems(key)]
    return problems
