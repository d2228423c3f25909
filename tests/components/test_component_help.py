"""``help()`` on a component lists every arg and every output, with the docstring other languages get.

What must be listed is read from Pulumi's own analyzer (``generate_component_schema``, unfinished): the input and
output names it derives from the typed args and the component's annotations, and the descriptions it reads from
the source. The rendered text is compared with whitespace folded (the listing wraps long docstrings).
"""

from __future__ import annotations

import inspect
import pydoc
import json
import re
import sys
from typing import Any

import pytest

pytest.importorskip("pulumi_azure_native")
pytest.importorskip("pulumi_eks")


def _folded(text: str) -> str:
    """Whitespace folded, and pydoc's ``|`` margin taken off each line."""
    return " ".join(re.sub(r"^\s*\|", "", text, flags=re.M).split())


def _snake(name: str) -> str:
    return re.sub(r"[A-Z]", lambda upper: "_" + upper.group().lower(), name)


@pytest.fixture(scope="module")
def analyzed() -> dict[str, Any]:
    """The analyzer's schema before ``finish_schema``: descriptions as the source writes them."""
    from gpupools._version import __version__
    from gpupools.provider import COMPONENTS, PACKAGE_NAME
    from gpupools.pulumi_internals import generate_component_schema

    spec = generate_component_schema(PACKAGE_NAME, __version__, list(COMPONENTS))
    return spec.to_json() if hasattr(spec, "to_json") else spec


def _components() -> list[type]:
    from gpupools.provider import COMPONENTS

    return list(COMPONENTS)


def _reachable_inputs(spec: dict[str, Any], properties: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every (name, property) a component's args hold, nested object types included (enums are not objects)."""
    found, queue, seen = [], list(properties.items()), set()
    while queue:
        name, prop = queue.pop(0)
        found.append((name, prop))
        refs = re.findall(r'"\$ref": "#/types/([^"]+)"', json.dumps(prop))
        for token in refs:
            kind = spec["types"][token]
            if token not in seen and kind.get("type") == "object":
                seen.add(token)
                queue.extend(kind["properties"].items())
    return found


@pytest.mark.parametrize("component", _components(), ids=lambda c: c.__name__)
def test_help_lists_every_arg_with_its_docstring(analyzed: dict[str, Any], component: type) -> None:
    resource = analyzed["resources"][f"gpupools:index:{component.__name__}"]
    rendered = _folded(pydoc.render_doc(component, renderer=pydoc.plaintext))
    class_doc, init_doc = _folded(inspect.getdoc(component) or ""), _folded(inspect.getdoc(component.__init__) or "")
    inputs = _reachable_inputs(analyzed, resource["inputProperties"])
    assert inputs, "the analyzer found no inputs to compare against"
    for name, prop in inputs:
        for doc in (class_doc, init_doc, rendered):
            assert re.search(rf"\b{_snake(name)}\b", doc), f"{component.__name__}: no arg {_snake(name)}"
            if _snake(name) != name:
                assert f"({name})" in doc, f"{component.__name__}: {_snake(name)}'s schema name {name} is missing"
            if prop.get("description"):
                assert _folded(prop["description"]) in doc, f"{component.__name__}.{name}: docstring missing"


@pytest.mark.parametrize("component", _components(), ids=lambda c: c.__name__)
def test_help_lists_every_output(analyzed: dict[str, Any], component: type) -> None:
    outputs = analyzed["resources"][f"gpupools:index:{component.__name__}"]["properties"]
    assert outputs, f"{component.__name__} registers no outputs the analyzer sees"
    class_doc = _folded(inspect.getdoc(component) or "")
    outputs_section = class_doc[class_doc.index("Outputs (") :]
    for name, prop in outputs.items():
        assert re.search(rf"\b{_snake(name)}\b", outputs_section), f"{component.__name__}: no output {name}"
        if prop.get("description"):
            assert _folded(prop["description"]) in outputs_section
    init_doc = inspect.getdoc(component.__init__) or ""
    assert all(re.search(rf"\b{_snake(name)}\b", init_doc) for name in outputs)


def test_render_doc_of_gpu_platform_names_each_arg_and_output() -> None:
    """The issue's own check, on names read from the args classes and the component's annotations."""
    import gpupools
    from gpupools.platform import args as platform_args

    rendered = pydoc.render_doc(gpupools.GpuPlatform, renderer=pydoc.plaintext)
    module = vars(platform_args).values()
    typed_dicts = [value for value in module if isinstance(value, type) and value.__module__ == platform_args.__name__]
    keys = {key for cls in typed_dicts for key in cls.__annotations__}
    outputs = {name for name in gpupools.GpuPlatform.__annotations__ if not name.startswith("_")}
    assert len(keys) > 40 and len(outputs) > 10
    missing = sorted(name for name in keys | outputs if not re.search(rf"\b{name}\b", rendered))
    assert not missing


DEMO = '''
from typing import NotRequired, TypedDict

from gpupools.component_args.docstrings import documented


class InnerArgs(TypedDict):
    depth_meters: int
    """How deep."""


class DemoArgs(TypedDict):
    pool_size: int
    """How many nodes."""
    zone_name: NotRequired[str]
    """Where they run."""
    inner: NotRequired[list[InnerArgs]]
    """Nested keys."""


@documented
class Demo:
    """A demo."""

    endpoint_url: str
    """Where it answers."""

    def __init__(self, name: str, args: DemoArgs) -> None:
        """Make one."""
'''


def test_the_sections_are_generated_from_the_docstrings(tmp_path, monkeypatch) -> None:
    """Not copied: a component written here gets its own keys, nested keys and outputs listed, with their docs."""
    import importlib

    (tmp_path / "gpupools_demo_component.py").write_text(DEMO, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    demo = importlib.import_module("gpupools_demo_component")
    try:
        doc = inspect.getdoc(demo.Demo) or ""
        assert doc.startswith("A demo.\n\nArgs (")
        for line in (
            "pool_size (poolSize): int",
            "How many nodes.",
            "zone_name (zoneName): str, optional",
            "inner: list[InnerArgs], optional",
            "depth_meters (depthMeters): int",
            "endpoint_url (endpointUrl): str",
            "Where it answers.",
        ):
            assert line in doc
        assert doc.index("depth_meters") > doc.index("inner:") and doc.index("endpoint_url") > doc.index("Outputs (")
        init = inspect.getdoc(demo.Demo.__init__) or ""
        assert init.startswith("Make one.") and "How many nodes." in init and "endpoint_url" in init
    finally:
        sys.modules.pop("gpupools_demo_component", None)


def test_importing_a_component_reads_no_source() -> None:
    """The sections are built when help() first reads them, not on import: a plan never pays for them."""
    import subprocess

    probe = (
        "import inspect\n"
        "from gpupools.component_args import docstrings\n"
        "from gpupools.platform import GpuPlatform\n"
        "before = docstrings._module_tree.cache_info().currsize\n"
        "doc = inspect.getdoc(GpuPlatform)\n"
        "print(before, docstrings._module_tree.cache_info().currsize > 0, 'gpu_pools (gpuPools)' in doc)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True)
    assert result.stdout.split() == ["0", "True", "True"], result.stderr[-2000:]
