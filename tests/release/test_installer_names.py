"""No module outside the installers' own table compares an installer's name: code asks the ``Installer`` object
(``gpuSoftware.chosen_installer``) for a fact or a facet instead, so a new installer never falls through to
another's path. Read from the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gpupools.catalog.installers import INSTALLERS

PACKAGE = Path(__file__).resolve().parents[2] / "components" / "gpupools"
OWN = {PACKAGE / "catalog" / "installers.py"}  # where each installer is defined, by name
NAMES = frozenset(INSTALLERS)
# ``x.installer`` is the stack file's name of the installer; comparing it is comparing a name.
NAME_ATTRIBUTES = {"installer", "_installer"}


def _names_in(node: ast.expr) -> list[str]:
    """What an operand of a comparison says about installer names ("" for ``software.installer``)."""
    if isinstance(node, ast.Constant) and node.value in NAMES:
        return [node.value]
    if isinstance(node, ast.Attribute) and node.attr in NAME_ATTRIBUTES:
        return [ast.unparse(node)]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [found for element in node.elts for found in _names_in(element)]
    return []


def comparisons(source: str) -> list[tuple[int, str]]:
    """(line, operand) of every comparison, ``match`` case or dict key that spells an installer's name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.MatchValue):
            operands = [node.value]
        elif isinstance(node, ast.Dict):  # a table keyed by installer name
            operands = [key for key in node.keys if isinstance(key, ast.Constant)]
        else:
            continue
        found += [(node.lineno, name) for operand in operands for name in _names_in(operand)]
    return found


@pytest.mark.parametrize(
    "source",
    [
        'if software.installer == "dra-driver": pass',
        'ok = name in ("device-plugin", "gpu-operator")',
        'ok = "gpu-operator" != name',
        "ok = config.gpu_software.installer != other",
        'TABLE = {"dra-driver": 1}',
        'match name:\n    case "device-plugin": pass',
    ],
)
def test_the_check_sees_each_way_of_comparing_a_name(source):
    assert comparisons(source)


def test_the_check_leaves_other_strings_alone():
    assert comparisons('if role == "dra-kubelet-plugin": pass\nmessage = "set installer gpu-operator"') == []


def test_no_module_outside_the_installers_compares_an_installer_name():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {operand}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in OWN
        for line, operand in comparisons(path.read_text())
    ]
    assert found == []
