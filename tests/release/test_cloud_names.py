"""No code outside a cloud's own modules compares a cloud's name or keys a table by it (docs/architecture.md,
"A cloud"): everything that differs by cloud is asked of its ``Cloud`` object (``catalog.cloud_registry``).

Read from the source with ``ast``: a comparison (``==``, ``!=``, ``in``, ``not in``, ``match``) against a string
that is a cloud's name, or a dict literal keyed by one, fails the test unless it sits in that cloud's own module.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "components" / "gpupools"
# The built-in clouds, spelled out here rather than read from the registry, so the test does not trust the code
# it checks.
CLOUD_NAMES = frozenset({"azure", "aws"})


def owner(path: Path) -> str | None:
    """The cloud whose own module ``path`` is: a package or a module named after it (``aws/``, ``aws_rules.py``,
    ``component_args/azure.py``); None for shared code."""
    for part in path.relative_to(PACKAGE).with_suffix("").parts:
        for name in CLOUD_NAMES:
            if part == name or part.startswith(name + "_"):
                return name
    return None


def _names_in(node: ast.AST) -> set[str]:
    """Cloud names a comparison operand spells: a string, or a tuple, list or set of strings."""
    elements = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return {e.value for e in elements if isinstance(e, ast.Constant) and e.value in CLOUD_NAMES}


def cloud_name_uses(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """(line, cloud name) for each comparison against a cloud name and each dict literal keyed by one."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, name) for name in _names_in(operand)]
        elif isinstance(node, ast.MatchValue):
            found += [(node.lineno, name) for name in _names_in(node.value)]
        elif isinstance(node, ast.Dict):
            found += [(node.lineno, name) for key in node.keys if key is not None for name in _names_in(key)]
    return found


def test_the_scan_finds_comparisons_and_keyed_tables():
    source = (
        'a = cloud == "aws"\n'
        'b = "azure" != cloud\n'
        'c = cloud in ("azure", "aws")\n'
        'd = {"aws": 1}\n'
        'match cloud:\n    case "azure":\n        pass\n'
        'e = cloud == "gcp"\n'
        'f = describe("aws")\n'
    )
    assert sorted(cloud_name_uses(source)) == [
        (1, "aws"),
        (2, "azure"),
        (3, "aws"),
        (3, "azure"),
        (4, "aws"),
        (6, "azure"),
    ]


def test_cloud_modules_are_told_apart_by_name():
    assert owner(PACKAGE / "aws" / "cluster.py") == "aws"
    assert owner(PACKAGE / "resolve" / "azure_rules.py") == "azure"
    assert owner(PACKAGE / "component_args" / "aws.py") == "aws"
    assert owner(PACKAGE / "resolve" / "pool_rules.py") is None
    assert owner(PACKAGE / "catalog" / "clouds.py") is None


def test_no_cloud_name_is_compared_outside_its_own_modules():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        mine = owner(path)
        for line, name in cloud_name_uses(path.read_text(), str(path)):
            if name != mine:
                offenders.append(f"{path.relative_to(PACKAGE)}:{line}: {name!r}")
    assert offenders == [], "ask the cloud object (catalog.cloud_registry.cloud) instead:\n" + "\n".join(offenders)
