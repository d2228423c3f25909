"""Karpenter's objects against the real v1.14.1 CRDs: each object's ``openAPIV3Schema`` (unknown fields refused) and
every ``x-kubernetes-validations`` rule on the way, evaluated with cel-python as the API server would on create.

The CRDs are the reference copies in ``../shared/reference/charts/karpenter-1.14.1/crds`` (never copied into the
project); tests using this module skip when they are absent or cel-python is missing. Transition rules (those naming
``oldSelf``) apply only to updates and are left out. Two functions of Kubernetes' CEL string library the rules use
are supplied as Kubernetes documents them: ``find`` (the first match of a regex, or "") and ``split``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from support.helm_render import CHARTS, crd_problems

celpy = pytest.importorskip("celpy")
from celpy import celtypes  # noqa: E402

KARPENTER_CRDS = CHARTS / "karpenter-1.14.1" / "crds"
CRD_FILES = {
    "NodePool": "karpenter.sh_nodepools.yaml",
    "NodeOverlay": "karpenter.sh_nodeoverlays.yaml",
    "EC2NodeClass": "karpenter.k8s.aws_ec2nodeclasses.yaml",
    "NodeClaim": "karpenter.sh_nodeclaims.yaml",
}


def require_crds() -> None:
    if not KARPENTER_CRDS.is_dir():
        pytest.skip("../shared/reference/charts/karpenter-1.14.1 is absent")


def crd_file(kind: str) -> Path:
    return KARPENTER_CRDS / CRD_FILES[kind]


@lru_cache(maxsize=None)
def _schema(kind: str, version: str) -> dict[str, Any]:
    crd = yaml.safe_load(crd_file(kind).read_text())
    return next(v for v in crd["spec"]["versions"] if v["name"] == version)["schema"]["openAPIV3Schema"]


def _find(text: Any, pattern: Any) -> Any:
    found = re.search(str(pattern), str(text))
    return celtypes.StringType(found.group(0) if found else "")


def _split(text: Any, separator: Any) -> Any:
    return celtypes.ListType([celtypes.StringType(part) for part in str(text).split(str(separator))])


_ENV = celpy.Environment()


@lru_cache(maxsize=None)
def _program(rule: str) -> Any:
    return _ENV.program(_ENV.compile(rule), functions={"find": _find, "split": _split})


def rules_evaluated(obj: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """Every create-time CEL rule on the object's path through its CRD: (where, rule, holds)."""
    version = obj["apiVersion"].split("/", 1)[1]
    body = {key: value for key, value in obj.items() if key != "metadata"}
    found: list[tuple[str, str, bool]] = []
    _walk(_schema(obj["kind"], version), body, "", found)
    return found


def cel_failures(obj: dict[str, Any]) -> list[str]:
    return [f"{obj['kind']} {where or '.'}: {rule}" for where, rule, holds in rules_evaluated(obj) if not holds]


def problems(obj: dict[str, Any]) -> list[str]:
    """Schema violations and broken CEL rules of one object, one line each."""
    return crd_problems(obj, crd_file(obj["kind"])) + cel_failures(obj)


def _walk(schema: dict[str, Any], value: Any, where: str, found: list[tuple[str, str, bool]]) -> None:
    for check in schema.get("x-kubernetes-validations", []):
        rule = check["rule"]
        if "oldSelf" in rule:
            continue
        result = _program(rule).evaluate({"self": celpy.json_to_cel(value)})
        found.append((where, rule, bool(result) if isinstance(result, celtypes.BoolType) else False))
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            sub = properties.get(key) or (extra if isinstance(extra, dict) else None)
            if sub is not None:
                _walk(sub, item, f"{where}.{key}", found)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _walk(schema["items"], item, f"{where}[{index}]", found)
