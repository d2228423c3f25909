"""The ``ast`` scan behind the "no code compares an installer's / a provisioner's name" release tests: one scanner,
told which names and which attributes (``x.installer``) count as spelling a name."""

from __future__ import annotations

import ast
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "components" / "gpupools"


@dataclass(frozen=True)
class NameComparisons:
    """Finds comparisons, ``match`` cases and dict keys that spell one of ``names``.

    ``name_tables_only``: a dict counts only when every constant key is a name (a table keyed by name), not an
    object with one such key among many."""

    names: frozenset[str]
    attributes: frozenset[str]
    name_tables_only: bool = False

    def _names_in(self, node: ast.expr) -> list[str]:
        if isinstance(node, ast.Constant) and node.value in self.names:
            return [node.value]
        if isinstance(node, ast.Attribute) and node.attr in self.attributes:
            return [ast.unparse(node)]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [found for element in node.elts for found in self._names_in(element)]
        return []

    def _dict_operands(self, node: ast.Dict) -> list[ast.expr]:
        keys = [key for key in node.keys if isinstance(key, ast.Constant)]
        if self.name_tables_only and not all(key.value in self.names for key in keys):
            return []
        return keys

    def __call__(self, source: str) -> list[tuple[int, str]]:
        """(line, operand) of every comparison, ``match`` case or dict key that spells a name."""
        found = []
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
            elif isinstance(node, ast.MatchValue):
                operands = [node.value]
            elif isinstance(node, ast.Dict):
                operands = self._dict_operands(node)
            else:
                continue
            found += [(node.lineno, name) for operand in operands for name in self._names_in(operand)]
        return found

    def in_package(self, own: Collection[Path]) -> list[str]:
        """``path:line: operand`` for each name comparison in the package outside the ``own`` modules."""
        return [
            f"{path.relative_to(PACKAGE.parent)}:{line}: {operand}"
            for path in sorted(PACKAGE.rglob("*.py"))
            if path not in own
            for line, operand in self(path.read_text())
        ]
