"""Check a Kueue object as the API server and Kueue's webhook would, with our own schema (``kueue_schema``).

In the server's order: the schema and the CEL rules first (both are the CRD's validation, so both are reported),
then, only for an object they accept, the validating webhook (``kueue_webhook``). ``problems(obj)`` returns what
would be refused, each prefixed with the check that refused it (``schema``, ``CEL``, ``webhook``); empty when the
object would be accepted. ``all_problems(obj)`` adds what Kueue v0.19.2's real CRDs and their CEL rules refuse
(``kueue_crd``, where ``../shared`` is present). The CEL rules run with cel-python, the project's CEL library (as
for DRA's selectors).
"""

from __future__ import annotations

from typing import Any

import pytest

from support import kueue_crd, kueue_webhook
from support.kueue_schema import API_VERSION, CEL_RULES, SCHEMAS, CelRule

celpy = pytest.importorskip("celpy")  # dev dependencies (requirements-dev.txt)
jsonschema = pytest.importorskip("jsonschema")

_VALIDATORS = {kind: jsonschema.Draft202012Validator(schema) for kind, schema in SCHEMAS.items()}
_CEL = celpy.Environment()
_PROGRAMS = {rule: _CEL.program(_CEL.compile(rule.rule)) for rule in CEL_RULES}
WEBHOOKS = {
    "ClusterQueue": kueue_webhook.cluster_queue_webhook,
    "ResourceFlavor": kueue_webhook.resource_flavor_webhook,
    "LocalQueue": lambda spec: [],  # Kueue v0.14.8 has no LocalQueue rule beyond the CRD
}
reached: set[CelRule] = set()  # every rule some checked object had a place for


def problems(obj: dict[str, Any]) -> list[str]:
    """What the API server (schema, CEL) and then Kueue's webhook would refuse in ``obj``."""
    kind = obj.get("kind", "")
    if kind not in SCHEMAS or obj.get("apiVersion") != API_VERSION:
        return [f"schema: not a Kueue object this check knows: {obj.get('apiVersion')} {kind}"]
    found = [f"schema: {_where(e.absolute_path)}: {e.message}" for e in _VALIDATORS[kind].iter_errors(obj)]
    found += [f"CEL at {path}: {rule.message} ({rule.rule})" for rule, path in failed_rules(obj)]
    if found:
        return found
    return [f"webhook: {p}" for p in WEBHOOKS[kind](obj["spec"])]


def all_problems(obj: dict[str, Any]) -> list[str]:
    """``problems`` and, where ``../shared`` is present, the real CRDs' (``CRD schema``, ``CRD CEL``)."""
    return problems(obj) + (kueue_crd.problems(obj) if kueue_crd.CRDS is not None else [])


def failed_rules(obj: dict[str, Any]) -> list[tuple[CelRule, str]]:
    """Each CEL rule of the object's kind that is false (or fails to evaluate, which the server also refuses) at a
    place the object has, with that place."""
    found = []
    for rule in CEL_RULES:
        if rule.kind != obj.get("kind"):
            continue
        for path, node in _nodes(obj, rule.path.split(".")):
            reached.add(rule)
            try:
                result = _PROGRAMS[rule].evaluate({"self": celpy.json_to_cel(node)})
            except celpy.CELEvalError as error:
                result = error
            if not (isinstance(result, celpy.celtypes.BoolType) and bool(result)):
                found.append((rule, path))
    return found


def _nodes(node: Any, steps: list[str], where: str = ""):
    """The values at a rule's path (``spec.resourceGroups[].flavors``), with their concrete place."""
    if not steps:
        yield where or "<root>", node
        return
    name, each = steps[0].removesuffix("[]"), steps[0].endswith("[]")
    if not isinstance(node, dict) or name not in node:
        return
    child, here = node[name], f"{where}.{name}" if where else name
    if not each:
        yield from _nodes(child, steps[1:], here)
    elif isinstance(child, list):
        for index, item in enumerate(child):
            yield from _nodes(item, steps[1:], f"{here}[{index}]")


def _where(path) -> str:
    return ".".join(map(str, path)) or "<root>"
