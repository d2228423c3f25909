"""Render the real NVIDIA charts with ``helm template`` and read back what Kubernetes would receive.

The charts are the reference copies in ``../shared/reference/charts`` (never copied into the project);
``helm`` comes from ``PATH`` or from ``.ci/node/bin/helm`` (``.ci/install-helm``). Either missing means
the render tests skip, so a fresh clone still passes. Renders are cached per chart, release, namespace
and values: each distinct input runs ``helm`` once per test session, and each distinct document of helm's output
(most are the same in every render of a chart, its CRDs above all) is parsed once, by libyaml where PyYAML has it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from copy import deepcopy
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CHARTS = REPO.parent / "shared" / "reference" / "charts"
LOCAL_HELM = REPO / ".ci" / "node" / "bin" / "helm"
KUBERNETES_VERSION = "1.33"  # the clusters' Kubernetes minor version (gpupools:cluster.kubernetesVersion default)

Object = dict[str, Any]


@lru_cache(maxsize=1)
def find_helm() -> str | None:
    """A helm binary that runs here: ``PATH`` first, then the one ``.ci/install-helm`` puts in ``.ci/node`` (asked
    once per session: each render module has its own ``renderer`` fixture)."""
    for candidate in (shutil.which("helm"), str(LOCAL_HELM) if LOCAL_HELM.is_file() else None):
        if candidate and subprocess.run([candidate, "version", "--short"], capture_output=True).returncode == 0:
            return candidate
    return None


def chart_folder(chart: str, version: str) -> Path:
    """The reference chart folder of a chart name and version as the Release passes them."""
    return CHARTS / f"{chart}-{version}"


_RENDERS: dict[tuple[str, str, str, str], list[Object]] = {}  # shared by every renderer of the session


class HelmRenderer:
    """``helm template`` with a cache: one subprocess per distinct (chart, release, namespace, values)."""

    def __init__(self, helm: str) -> None:
        self.helm = helm
        self.runs = 0
        self.seconds = 0.0
        self._cache = _RENDERS

    def render(self, chart: Path, release: str, namespace: str, values: Mapping[str, Any]) -> list[Object]:
        """The objects the chart renders (CRDs from ``crds/`` included, as ``helm install`` applies them)."""
        key = (str(chart), release, namespace, json.dumps(values, sort_keys=True))
        if key not in self._cache:
            self._cache[key] = self._run(chart, release, namespace, values)
        return deepcopy(self._cache[key])

    def _run(self, chart: Path, release: str, namespace: str, values: Mapping[str, Any]) -> list[Object]:
        import time

        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as values_file:
            json.dump(values, values_file)  # JSON is YAML; exact types survive
            values_file.flush()
            started = time.perf_counter()
            result = subprocess.run(
                [
                    self.helm,
                    "template",
                    release,
                    str(chart),
                    "--namespace",
                    namespace,
                    "--values",
                    values_file.name,
                    "--kube-version",
                    f"{KUBERNETES_VERSION}.0",
                    "--include-crds",
                ],
                capture_output=True,
                text=True,
            )
            self.seconds += time.perf_counter() - started
            self.runs += 1
        if result.returncode != 0:
            raise AssertionError(f"helm template {chart.name} failed: {result.stderr.strip()}")
        return [doc for text in _DOCUMENT_START.split(result.stdout) for doc in _documents(text)]


# A line of just ``---`` at column 0 starts a YAML document wherever it is, so each piece between two is parsed
# alone as it would be in the whole stream (a piece is still read as a stream: it may hold more).
_DOCUMENT_START = re.compile(r"^---[ \t]*$\n?", re.MULTILINE)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the same documents as SafeLoader, parsed in C


@lru_cache(maxsize=None)
def _documents(text: str) -> tuple[Object, ...]:
    """The non-empty documents of one piece of helm's output, parsed once per session (callers get deep copies)."""
    return tuple(doc for doc in yaml.load_all(text, Loader=_LOADER) if doc)


@pytest.fixture(scope="session")
def renderer() -> HelmRenderer:
    """The session's renderer; the test skips when no helm runs here."""
    helm = find_helm()
    if helm is None:
        pytest.skip("helm not found on PATH or in .ci/node/bin (run .ci/install-helm)")
    return HelmRenderer(helm)


def of_kind(objects: Iterable[Object], kind: str) -> list[Object]:
    return [obj for obj in objects if obj.get("kind") == kind]


def named(objects: Iterable[Object], kind: str, name: str) -> Object:
    found = [obj for obj in of_kind(objects, kind) if obj["metadata"]["name"] == name]
    assert len(found) == 1, (
        f"expected one {kind} {name}, rendered: {[o['metadata']['name'] for o in of_kind(objects, kind)]}"
    )
    return found[0]


def pod_placement(daemonset: Object) -> tuple[list[Object], dict[str, str], Object | None]:
    """A rendered DaemonSet's pod template placement: tolerations, nodeSelector, affinity."""
    spec = daemonset["spec"]["template"]["spec"]
    return list(spec.get("tolerations") or []), dict(spec.get("nodeSelector") or {}), spec.get("affinity")


def container_env(daemonset: Object) -> dict[str, dict[str, str]]:
    """Container name -> its literal env values, init containers included."""
    spec = daemonset["spec"]["template"]["spec"]
    return {
        container["name"]: {env["name"]: env.get("value") for env in container.get("env") or [] if "value" in env}
        for container in [*(spec.get("initContainers") or []), *spec["containers"]]
    }


# --- Built-in objects: kubernetes-validate's strict schemas ---------------------------------------------------


def builtin_problems(objects: Iterable[Object]) -> list[str]:
    """One line per rendered built-in object that the strict Kubernetes schema refuses (CRs are skipped)."""
    problems = []
    for obj in objects:
        if "nvidia.com" not in obj["apiVersion"]:  # custom resources: their CRD schema decides (crd_problems)
            problems += _builtin_problems(json.dumps(obj, sort_keys=True))
    return problems


@lru_cache(maxsize=1)
def kubernetes_validate() -> Any:
    """The ``kubernetes_validate`` module, with each schema file it reads decoded once per session: its ``validate``
    reads and decodes the whole definitions file (megabytes of JSON) again for every object. The schemas are only
    read (jsonschema never writes to one), so every object is checked against the same schema as before."""
    import kubernetes_validate
    import kubernetes_validate.utils

    if not hasattr(kubernetes_validate.utils.schema_contents, "cache_info"):  # validate() looks it up there
        kubernetes_validate.utils.schema_contents = lru_cache(maxsize=None)(kubernetes_validate.utils.schema_contents)
    return kubernetes_validate


@lru_cache(maxsize=None)
def _builtin_problems(obj_json: str) -> tuple[str, ...]:
    """Validation of one object, cached by content: most objects are the same in every render of a chart."""
    validation = kubernetes_validate()
    obj = json.loads(obj_json)
    try:
        validation.validate(obj, KUBERNETES_VERSION, strict=True)
    except validation.ValidationError as error:
        where = "/".join(str(part) for part in error.path)
        return (f"{obj['kind']} {obj['metadata']['name']}: {where}: {error.message}",)
    except validation.SchemaNotFoundError as error:
        return (f"{obj['kind']} {obj['metadata']['name']}: {error.message}",)
    return ()


# --- Custom resources: the CRD's openAPIV3Schema, with unknown fields refused -----------------------------------


@lru_cache(maxsize=None)
def crd_validator(crd_file: Path, version: str) -> Any:
    """A JSON Schema validator of one CRD version; unknown fields are errors (the API server would prune them)."""
    import jsonschema

    crd = yaml.load(crd_file.read_text(), Loader=_LOADER)
    schema = next(v for v in crd["spec"]["versions"] if v["name"] == version)["schema"]["openAPIV3Schema"]
    return jsonschema.Draft7Validator(closed_schema(schema))


def crd_problems(obj: Object, crd_file: Path) -> list[str]:
    """One line per schema violation of a custom resource (its ``spec``, ``status`` and the rest)."""
    version = obj["apiVersion"].split("/", 1)[1]
    body = {key: value for key, value in obj.items() if key != "metadata"}  # metadata is ObjectMeta, not in the CRD
    errors = sorted(crd_validator(crd_file, version).iter_errors(body), key=lambda e: list(e.absolute_path))
    return [
        f"{obj['kind']} {obj['metadata']['name']}: {'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors
    ]


def closed_schema(schema: Any) -> Any:
    """The schema with ``additionalProperties: false`` on every object with ``properties`` and no opt-out: unknown
    fields refused wherever the API server would prune them (a CRD's schema read as ``--validate=strict``)."""
    if isinstance(schema, list):
        return [closed_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {
        key: {name: closed_schema(sub) for name, sub in value.items()} if key == "properties" else closed_schema(value)
        for key, value in schema.items()
    }
    if (
        "properties" in closed
        and "additionalProperties" not in closed
        and not closed.get("x-kubernetes-preserve-unknown-fields")
    ):
        closed["additionalProperties"] = False
    return closed
