"""Other languages read the schema's own names: no description the provider serves names an argument or output in
Python's snake_case (``layout_mix``) where TypeScript, YAML and Go write ``layoutMix``.

The names to look for are read from the Python side, not from the schema: every key of every args TypedDict and
every annotated attribute of every component, in the modules that define them.
"""

from __future__ import annotations

import copy
import json
import re
import typing
from typing import Any

import pytest

pytest.importorskip("pulumi_azure_native")
pytest.importorskip("pulumi_eks")


def _typed_dicts_in(hint: Any) -> list[type]:
    if typing.is_typeddict(hint):
        return [hint]
    return [found for arg in typing.get_args(hint) for found in _typed_dicts_in(arg)]


def _python_names() -> set[str]:
    """Every snake_case key of the components' args TypedDicts (nested ones too) and every public snake_case
    attribute the components annotate."""
    from gpupools.provider import COMPONENTS

    names: set[str] = set()
    queue = [typing.get_type_hints(component.__init__)["args"] for component in COMPONENTS]
    seen: set[type] = set()
    while queue:
        args = queue.pop()
        if args in seen:
            continue
        seen.add(args)
        names |= set(args.__annotations__)
        queue += [nested for hint in args.__annotations__.values() for nested in _typed_dicts_in(hint)]
    for component in COMPONENTS:
        for cls in component.__mro__:
            if cls.__module__.startswith("gpupools"):
                names |= set(getattr(cls, "__annotations__", {}))
    return {name for name in names if "_" in name and not name.startswith("_")}


def _descriptions(node: Any, where: str = "") -> list[tuple[str, str]]:
    if isinstance(node, dict):
        found = [(where, node["description"])] if isinstance(node.get("description"), str) else []
        return found + [item for key, value in node.items() for item in _descriptions(value, f"{where}/{key}")]
    if isinstance(node, list):
        return [item for value in node for item in _descriptions(value, where)]
    return []


def _snake_names_in(schema: dict[str, Any], names: set[str]) -> list[str]:
    """``where: name`` for each argument name written in snake_case in a description. A name inside a dotted
    Python path (``gpupools.charts.dcgm_exporter.dcgm_exporter_values``) is a module or a function, not an argument."""
    pattern = re.compile(r"(?<![\w.])(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")(?![\w])")
    return [f"{where}: {match.group(1)}" for where, text in _descriptions(schema) for match in pattern.finditer(text)]


@pytest.fixture(scope="module")
def served() -> dict[str, Any]:
    from gpupools._version import __version__
    from gpupools.provider import COMPONENTS, PACKAGE_NAME, GpuPoolsProvider

    return json.loads(GpuPoolsProvider(COMPONENTS, PACKAGE_NAME, __version__).schema or "{}")


@pytest.fixture(scope="module")
def names() -> set[str]:
    found = _python_names()
    assert {"layout_mix", "cluster_name", "subnet_ids", "resources_per_node"} <= found
    return found


def test_no_description_names_a_snake_case_argument(served: dict[str, Any], names: set[str]) -> None:
    assert _snake_names_in(served, names) == []


def test_the_docstrings_do_name_them_in_python(names: set[str]) -> None:
    """The check has something to find: the analyzer's own schema, before it is finished, has the Python names."""
    from gpupools._version import __version__
    from gpupools.provider import COMPONENTS, PACKAGE_NAME
    from gpupools.pulumi_internals import generate_component_schema

    spec = generate_component_schema(PACKAGE_NAME, __version__, list(COMPONENTS))
    raw = spec.to_json() if hasattr(spec, "to_json") else spec
    found = {line.rsplit(": ", 1)[1] for line in _snake_names_in(raw, names)}
    assert {"layout_mix", "time_slicing", "subnet_ids"} <= found


def test_a_planted_snake_case_name_is_found(served: dict[str, Any], names: set[str]) -> None:
    planted = copy.deepcopy(served)
    planted["types"]["gpupools:index:MigArgs"]["properties"]["profile"]["description"] += " Not with layout_mix."
    assert _snake_names_in(planted, names) == ["/types/gpupools:index:MigArgs/properties/profile: layout_mix"]


def test_descriptions_name_the_schema_property(served: dict[str, Any]) -> None:
    """The rewritten name is the schema's: ``MigArgs`` says to set one of profile, layout or layoutMix, and that is
    a property of that type."""
    mig = served["types"]["gpupools:index:MigArgs"]
    assert "layoutMix" in mig["description"] and "layoutMix" in mig["properties"]
    sharing = served["types"]["gpupools:index:SharingArgs"]
    assert "timeSlicing" in sharing["description"] and "timeSlicing" in sharing["properties"]


def test_component_descriptions_are_the_class_docstrings_own_text(served: dict[str, Any]) -> None:
    """The Args and Outputs sections ``help()`` shows stay out of the schema, which has a description per property."""
    import gpupools

    platform = served["resources"]["gpupools:index:GpuPlatform"]["description"]
    own = (gpupools.GpuPlatform.__doc__ or "").split("\n\n")[0].strip()
    assert platform == own and "Args (" not in platform


def test_outputs_declared_on_a_base_class_are_described(served: dict[str, Any]) -> None:
    for chart in ("NvidiaDevicePlugin", "NvidiaGpuOperator", "NvidiaDraDriver"):
        outputs = served["resources"][f"gpupools:index:{chart}"]["properties"]
        assert outputs and all(prop.get("description") for prop in outputs.values()), chart


# A Python dotted path (gpupools.autoscaling.eks_autoscaler_tags): a module or function other languages cannot use,
# and which may not even exist any more. gpupools.io/ is a label prefix, not a module.
PYTHON_PATH = re.compile(r"\bgpupools\.(?!io/)[a-z_]+")


def test_no_description_names_a_python_module_or_function(served: dict[str, Any]) -> None:
    found = [f"{where}: {text[:80]}" for where, text in _descriptions(served) if PYTHON_PATH.search(text)]
    assert found == []


def test_a_planted_python_path_is_found(served: dict[str, Any]) -> None:
    planted = copy.deepcopy(served)
    node_group = planted["resources"]["gpupools:index:EksGpuNodeGroup"]["inputProperties"]["tags"]
    node_group["description"] += " e.g. from gpupools.autoscaling.eks_autoscaler_tags"
    assert [where for where, text in _descriptions(planted) if PYTHON_PATH.search(text)] == [
        "/resources/gpupools:index:EksGpuNodeGroup/inputProperties/tags"
    ]
