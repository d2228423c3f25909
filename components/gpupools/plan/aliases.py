"""Which base resource a head resource *is*, when it carries an alias: the engine matches an alias against the state
and then treats the two as one resource, updated or replaced, never as a create and a delete.

pulumi/pulumi v3.259.0 (``0ac56e87``) ``pkg/resource/deploy/step_generator.go``: ``generateAliases`` turns each
alias into a URN (``collapseAliasToUrn``: an unset name, type or parent is the resource's own) and multiplies the
parent's aliases into its children's (``inheritedChildAlias``); the first alias found in the old state becomes the
resource's old self (``sg.aliases[urn] = urnOrAlias``). A replacement's order is then the provider's answer
(``diff.DeleteBeforeReplace``) unless the resource's own ``deleteBeforeReplace`` option overrides it (line 2044).
The plan records each resource's aliases as its request carried them (``offline_runtime.mocks.resource_options``).
"""

from __future__ import annotations

from typing import Any, Mapping

Key = tuple[str, str]  # (type, logical name)


def alias_keys(resource: Mapping[str, Any]) -> list[Key]:
    """The (type, name) keys the resource's aliases name under the same parent; a URN alias by its last parts."""
    keys = []
    aliases = (resource.get("options") or {}).get("aliases") or []
    for alias in aliases if isinstance(aliases, list) else []:
        if not isinstance(alias, Mapping):
            continue
        if isinstance(alias.get("urn"), str):
            *_, qualified, name = str(alias["urn"]).split("::")
            keys.append((qualified.rsplit("$", 1)[-1], name))
        elif alias.get("name") and not alias.get("parentUrn") and not alias.get("noParent"):
            keys.append((str(alias.get("type") or resource.get("type")), str(alias["name"])))
    return keys


def old_self(resource: Mapping[str, Any], base: Mapping[Key, Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The base resource the head resource is: the one of its own key, else the first its aliases name."""
    own = base.get((str(resource.get("type")), str(resource.get("name"))))
    if own is not None:
        return own
    for key in alias_keys(resource):
        if key in base:
            return base[key]
    return None


def is_alias_of(head: Mapping[str, Any], base: Mapping[str, Any]) -> bool:
    """The head resource has another logical name than the base one and an alias to it: the same resource."""
    key = (str(base.get("type")), str(base.get("name")))
    return head.get("name") != base.get("name") and key in alias_keys(head)


def aliased_replacement(old_logical: str, old_name: str, new_name: str, gpus: int) -> str:
    """A surge replacement made delete-first by an alias: why, and how to keep create-first."""
    return (
        f"surge, but delete-first: the new generation carries an alias to {old_logical}, which the state still "
        "holds (gpupools 0.2.0 named every node group so), so the engine replaces that resource in place of creating "
        f"a new one, and the AWS provider deletes a node group whose name is set first: {old_name} is deleted before "
        f"{new_name} is created, its capacity ({gpus} GPUs) gone until {new_name} is up. To keep create-first, deploy "
        "this gpupools once without changing the pool (the alias then moves the group to its generation's name), "
        "then make the change"
    )
