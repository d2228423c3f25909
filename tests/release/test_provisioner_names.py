"""No module outside a node provisioner's own compares its name (issue 38): code asks the ``NodeProvisioner`` object
(``pool.provisioner``) for a fact or a facet, and a cloud lists the provisioners it offers. Read with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gpupools.catalog.provisioners import PROVISIONERS

PACKAGE = Path(__file__).resolve().parents[2] / "components" / "gpupools"
# Where a provisioner is defined by name, and Karpenter's own rules (its cluster settings' key is its name too).
OWN = {PACKAGE / "catalog" / "provisioners.py", PACKAGE / "resolve" / "karpenter_rules.py"}
NAMES = frozenset(PROVISIONERS)
NAME_ATTRIBUTES = {"provisioner"}  # ``pool.config.provisioner`` is the stack file's name


def _names_in(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and node.value in NAMES:
        return [node.value]
    if isinstance(node, ast.Attribute) and node.attr in NAME_ATTRIBUTES:
        return [ast.unparse(node)]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [found for element in node.elts for found in _names_in(element)]
    return []


def comparisons(source: str) -> list[tuple[int, str]]:
    """(line, operand) of every comparison, ``match`` case or dict key that spells a provisioner's name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.MatchValue):
            operands = [node.value]
        elif isinstance(node, ast.Dict):  # a table keyed by provisioner (not an object with one such key among many)
            keys = [key for key in node.keys if isinstance(key, ast.Constant)]
            operands = keys if keys and all(key.value in NAMES for key in keys) else []
        else:
            continue
        found += [(node.lineno, name) for operand in operands for name in _names_in(operand)]
    return found


@pytest.mark.parametrize(
    "source",
    [
        'if pool.config.provisioner == "karpenter": pass',
        'ok = name in ("nodeGroup", "karpenter")',
        'TABLE = {"karpenter": 1}',
        'match name:\n    case "nodeGroup": pass',
    ],
)
def test_the_check_sees_each_way_of_comparing_a_name(source):
    assert comparisons(source)


def test_the_check_leaves_other_strings_alone():
    assert comparisons('outputs = {"karpenter": True, "cloud": "aws"}\nmessage = "set provisioner: karpenter"') == []


def test_no_module_outside_a_provisioner_s_own_compares_its_name():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {operand}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in OWN
        for line, operand in comparisons(path.read_text())
    ]
    assert found == []
