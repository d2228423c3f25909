"""The literals that were once written in several places (the pool label, the system pool's defaults, the
cluster-autoscaler expander default) are written once, in the catalog, and every other module imports them.

The code is read as source (``ast``), so this stays a pure test: no component module is imported. Docstrings
may still state a default for the reader (they become the multi-language schema); where they do, they must
state the catalog's value.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gpupools.catalog.chart_refs import CLUSTER_AUTOSCALER_EXPANDERS, DEFAULT_EXPANDER
from gpupools.catalog.clouds import AKS_SYSTEM_POOL_SIZE, EKS_SYSTEM_NODE_SIZE, SYSTEM_POOL_COUNT, SYSTEM_POOL_NAME
from gpupools.catalog.labels import POOL_LABEL
from gpupools.config.models import SystemPool

PACKAGE = Path(__file__).resolve().parents[2] / "components" / "gpupools"
# Each literal and the one catalog module allowed to spell it.
WRITTEN_ONCE = {
    POOL_LABEL: "catalog/labels.py",
    AKS_SYSTEM_POOL_SIZE: "catalog/clouds.py",
    EKS_SYSTEM_NODE_SIZE: "catalog/clouds.py",
    DEFAULT_EXPANDER: "catalog/chart_refs.py",
}


def _spelled(source: str) -> set[str]:
    """The string values a module writes in code: not in docstrings (a bare string statement: module, class,
    field) nor in ``Literal[...]`` types (a type spells its values for type checkers; tested equal). One walk of the
    tree collects the strings and what to skip (the scan parses every module of the package)."""
    strings, skipped = [], set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skipped.add(id(node.value))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            skipped.update(id(inner) for inner in ast.walk(node.slice))
    return {node.value for node in strings if id(node) not in skipped}


def test_each_literal_is_written_in_the_catalog_only():
    found: dict[str, list[str]] = {literal: [] for literal in WRITTEN_ONCE}
    for path in sorted(PACKAGE.rglob("*.py")):
        spelled = _spelled(path.read_text())
        for literal in WRITTEN_ONCE:
            if literal in spelled:
                found[literal].append(path.relative_to(PACKAGE).as_posix())
    assert found == {literal: [home] for literal, home in WRITTEN_ONCE.items()}


def test_the_scan_sees_a_second_spelling():
    """A copy in code is found; the same words in a docstring or a ``Literal`` type are not."""
    source = f'''"""Labels nodes {POOL_LABEL}."""
Expander = Literal["{DEFAULT_EXPANDER}", "random"]
labels = {{"{POOL_LABEL}": "system"}}
'''
    assert POOL_LABEL in _spelled(source)
    assert DEFAULT_EXPANDER not in _spelled(source)


def _field_docs(path: str, cls: str) -> dict[str, str]:
    """A class's field docstrings, the string right after each field (how Pulumi's analyzer reads them)."""
    tree = ast.parse((PACKAGE / path).read_text())
    body = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == cls).body
    return {
        field.target.id: doc.value.value
        for field, doc in zip(body, body[1:])
        if isinstance(field, ast.AnnAssign)
        and isinstance(field.target, ast.Name)
        and isinstance(doc, ast.Expr)
        and isinstance(doc.value, ast.Constant)
    }


# (module, args class, field, the default the component or the config applies)
DOCUMENTED_DEFAULTS = [
    ("azure/cluster.py", "AksClusterArgs", "system_pool_size", AKS_SYSTEM_POOL_SIZE),
    ("azure/cluster.py", "AksClusterArgs", "system_pool_count", SYSTEM_POOL_COUNT),
    ("aws/cluster.py", "EksClusterArgs", "system_node_size", EKS_SYSTEM_NODE_SIZE),
    ("aws/cluster.py", "EksClusterArgs", "system_node_count", SYSTEM_POOL_COUNT),
    ("platform/args.py", "SystemPoolArgs", "count", SystemPool.model_fields["count"].default),
]


@pytest.mark.parametrize("path, cls, field, default", DOCUMENTED_DEFAULTS, ids=lambda case: str(case))
def test_a_docstring_states_the_catalogs_default(path, cls, field, default):
    doc = _field_docs(path, cls)[field]
    assert f"(default {default})" in doc, f"{cls}.{field}: {doc!r} does not state the default {default}"


def test_the_defaults_agree_across_layers():
    """The config's default count is the catalog's, the expander default is one the chart offers, and the
    system pool's name is the one the AKS rules keep GPU pools from taking."""
    from gpupools.catalog.cloud import PoolNaming
    from gpupools.catalog.cloud_registry import cloud

    assert SystemPool.model_fields["count"].default == SYSTEM_POOL_COUNT
    assert DEFAULT_EXPANDER in CLUSTER_AUTOSCALER_EXPANDERS
    assert SYSTEM_POOL_NAME in cloud("azure").facet(PoolNaming).reserved
