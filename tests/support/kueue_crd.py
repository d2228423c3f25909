"""Check an object as the API server would with Kueue v0.19.2's own CRDs (``../shared/reference/kueue/crds``).

Read at test time, never copied into the project; ``CRDS`` is None when ``../shared`` is absent, and the callers
skip. For the object's served version (``kueue.x-k8s.io/v1beta1`` or ``v1beta2``):

- its ``openAPIV3Schema`` as JSON Schema (jsonschema, draft 2020-12), made strict: every object node with
  ``properties`` and no ``additionalProperties`` or ``x-kubernetes-preserve-unknown-fields`` refuses other fields,
  as the API server does under ``kubectl apply``'s default ``--validate=strict`` (and prunes them otherwise);
  ``metadata`` (only ``type: object`` in a CRD) is checked as the server checks a custom resource's name: a
  DNS-1123 subdomain, and a namespace exactly when the CRD is namespaced;
- the schema's ``default`` values applied first, as the server defaults before it validates;
- every ``x-kubernetes-validations`` CEL rule, run with cel-python where its node is in the object: with ``self``
  on a create, and, for the transition rules that read ``oldSelf``, on a re-apply of the same object
  (``oldSelf`` = ``self``), which is what ``kubectl apply`` of an unchanged answer does.

``problems(obj)`` lists what would be refused, each prefixed ``CRD schema`` or ``CRD CEL``; empty when accepted.
``reached`` collects every rule some checked object had a node for.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from support.helm_render import closed_schema

celpy = pytest.importorskip("celpy")  # dev dependencies (requirements-dev.txt)
jsonschema = pytest.importorskip("jsonschema")

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "kueue" / "crds"
GROUP = "kueue.x-k8s.io"
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_CEL = celpy.Environment()
reached: set[tuple[str, str]] = set()  # (kind, rule)


def _load() -> dict[str, dict[str, Any]] | None:
    """Kind -> its CRD, from the reference copies; None without them."""
    if not REFERENCE.is_dir():
        return None
    crds = [yaml.safe_load(path.read_text()) for path in sorted(REFERENCE.glob(f"{GROUP}_*.yaml"))]
    return {crd["spec"]["names"]["kind"]: crd for crd in crds}


CRDS = _load()


def served_versions(kind: str) -> list[str]:
    assert CRDS is not None
    return [v["name"] for v in CRDS[kind]["spec"]["versions"] if v.get("served")]


def _version(kind: str, version: str) -> tuple[dict[str, Any], bool]:
    """The version's openAPIV3Schema, and whether the kind is namespaced."""
    assert CRDS is not None
    crd = CRDS[kind]
    (found,) = [v for v in crd["spec"]["versions"] if v["name"] == version and v.get("served")]
    return found["schema"]["openAPIV3Schema"], crd["spec"]["scope"] == "Namespaced"


def _defaulted(schema: dict[str, Any], value: Any) -> Any:
    """``value`` with the schema's defaults filled in where a field is absent, as the API server defaults."""
    if isinstance(value, dict):
        out = dict(value)
        for name, sub in schema.get("properties", {}).items():
            if name not in out and "default" in sub:
                out[name] = copy.deepcopy(sub["default"])
            if name in out:
                out[name] = _defaulted(sub, out[name])
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for name in set(out) - set(schema.get("properties", {})):
                out[name] = _defaulted(extra, out[name])
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_defaulted(schema["items"], item) for item in value]
    return value


def _metadata(metadata: Any, namespaced: bool) -> list[str]:
    if not isinstance(metadata, dict):
        return ["metadata must be an object"]
    found = [f"metadata.{key} is not a field gpupools should write" for key in metadata if key not in _META_FIELDS]
    name = metadata.get("name")
    if not isinstance(name, str) or len(name) > 253 or not _SUBDOMAIN.fullmatch(name):
        found.append(f"metadata.name {name!r} is not a DNS-1123 subdomain")
    namespace = metadata.get("namespace")
    if namespaced and (not isinstance(namespace, str) or len(namespace) > 63 or not _LABEL.fullmatch(namespace)):
        found.append(f"metadata.namespace {namespace!r} is not a DNS-1123 label (the kind is namespaced)")
    if not namespaced and namespace is not None:
        found.append("metadata.namespace is set on a cluster-scoped kind")
    return found


_META_FIELDS = {"name", "namespace", "labels", "annotations"}


def problems(obj: dict[str, Any]) -> list[str]:
    """What the API server, with Kueue v0.19.2's CRDs, would refuse in ``obj``."""
    assert CRDS is not None, "the caller skips without ../shared"
    kind, api_version = obj.get("kind"), obj.get("apiVersion", "")
    group, _, version = str(api_version).partition("/")
    if kind not in CRDS or group != GROUP or version not in served_versions(str(kind)):
        return [f"CRD schema: no served Kueue CRD for {api_version} {kind}"]
    schema, namespaced = _version(str(kind), version)
    value = _defaulted(schema, obj)
    found = [f"CRD schema: {m}" for m in _metadata(obj.get("metadata"), namespaced)]
    validator = jsonschema.Draft202012Validator(closed_schema(schema))
    found += [f"CRD schema: {_where(e.absolute_path)}: {e.message}" for e in validator.iter_errors(value)]
    if not found:
        found += [
            f"CRD CEL at {where}: {message} ({rule})" for rule, message, where in failed_rules(str(kind), schema, value)
        ]
    return found


def failed_rules(kind: str, schema: dict[str, Any], value: Any, where: str = "") -> list[tuple[str, str, str]]:
    """Each CEL rule of the schema false (or failing to evaluate, which the server also refuses) at its node."""
    found = []
    for validation in schema.get("x-kubernetes-validations", []):
        rule = validation["rule"]
        reached.add((kind, rule))
        bound = {"self": celpy.json_to_cel(value)}
        if "oldSelf" in rule:  # a transition rule: runs on an update; a re-apply of the same object
            bound["oldSelf"] = celpy.json_to_cel(value)
        try:
            result = _CEL.program(_CEL.compile(rule)).evaluate(bound)
        except celpy.CELEvalError as error:
            result = error
        if not (isinstance(result, celpy.celtypes.BoolType) and bool(result)):
            found.append((rule, validation.get("message", ""), where or "<root>"))
    if isinstance(value, dict):
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                found += failed_rules(kind, sub, value[name], f"{where}.{name}" if where else name)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            found += failed_rules(kind, schema["items"], item, f"{where}[{index}]")
    return found


def _where(path) -> str:
    return ".".join(map(str, path)) or "<root>"
