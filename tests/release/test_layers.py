"""The package's one direction for data (docs/architecture.md): a module imports only from its own package or
from packages to its left, counting every import (module level, inside functions, under ``TYPE_CHECKING``), and
no package has an import cycle inside it.

Read from the source with ``ast``, so an import that only runs in some code path counts too.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "components" / "gpupools"

# Bottom to top. A module belongs to the first-level package it lives in; the components' packages share a layer
# rank in this order (kubernetes may use aws's IAM helper, never the reverse).
LAYERS = [
    "_version",
    "errors",
    "untrusted",
    "catalog",
    "config",
    "domain",
    "charts",
    "resolve",
    "pulumi_internals",
    "component_args",
    "azure",
    "aws",
    "kubernetes",
    "platform",
    "offline_runtime",
    "testing",
    "price_lists",
    "kueue",
    "fit",
    "plan",
    "pictures",
    "verify",
    "provider",
    "facts",
    "stack_order",
    "cli",
    "reference_docs",
]
# Import paths users know, kept as thin re-exports at the top: they may import from any layer, and nothing in the
# package may import them.
FACADES = {"gpupools", "gpupools.__main__", "gpupools.workloads"}
ALLOWLIST: set[tuple[str, str]] = set()  # (importer, imported) that break the rule today; may only shrink


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = _modules()


def _imports(module: str, path: Path) -> list[tuple[str, int, bool]]:
    """(imported gpupools module, line, under TYPE_CHECKING) for every import in the file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    guarded = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for statement in block.body
        for node in ast.walk(statement)
    }
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            base = (
                ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                if node.level
                else (node.module or "")
            )
            for alias in node.names:  # ``from . import x`` imports the module ``x`` when there is one
                targets.append(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        found += [
            (target, node.lineno, id(node) in guarded) for target in targets if target.split(".")[0] == "gpupools"
        ]
    return found


@lru_cache(maxsize=1)
def _package_imports() -> dict[str, list[tuple[str, int, bool]]]:
    """Every module's imports, scanned once per session: each test below reads the same scan."""
    return {module: _imports(module, path) for module, path in MODULES.items()}


def _layer(module: str) -> int | None:
    """The rank of a module's first-level package; None for the facades."""
    if module in FACADES:
        return None
    return LAYERS.index(module.split(".")[1])


def _violations() -> set[tuple[str, str, int]]:
    bad = set()
    for module, imports in _package_imports().items():
        for target, line, _ in imports:
            if target in FACADES and module not in FACADES:
                bad.add((module, target, line))
                continue
            here, there = _layer(module), _layer(target)
            if here is not None and there is not None and there > here:
                bad.add((module, target, line))
    return bad


def test_every_module_has_a_layer():
    unknown = sorted(m for m in MODULES if m not in FACADES and m.split(".")[1] not in LAYERS)
    assert not unknown, f"modules outside every layer (add their package to LAYERS in its place): {unknown}"


def test_imports_only_go_leftwards():
    found = sorted(v for v in _violations() if (v[0], v[1]) not in ALLOWLIST)
    assert not found, "imports of a layer to the right:\n" + "\n".join(
        f"{m}:{line} imports {t}" for m, t, line in found
    )


def test_the_allowlist_only_shrinks():
    stale = sorted(ALLOWLIST - {(m, t) for m, t, _ in _violations()})
    assert not stale, f"allowed violations that no longer exist; remove them: {stale}"


def test_no_type_checking_imports():
    guarded = sorted(f"{m}:{line} imports {t}" for m, found in _package_imports().items() for t, line, g in found if g)
    assert not guarded, "imports hidden under TYPE_CHECKING (a cycle held apart):\n" + "\n".join(guarded)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycles_between_modules():
    graph = {m: {t for t, _, _ in found if t in MODULES and t != m} for m, found in _package_imports().items()}
    # A package's __init__ importing its own modules is how a package exposes them, not a cycle of meaning.
    for module in graph:
        graph[module] = {t for t in graph[module] if not module.startswith(t + ".")}
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph) or [])}"


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from ..resolve import load_stack", ("gpupools.resolve", True)),
        ("from ..platform.program import main", ("gpupools.platform.program", True)),
    ],
)
def test_the_scan_sees_a_rightward_import_inside_a_function(tmp_path, source, expected):
    """The scanner itself: an import written inside a function of a domain module is found and ranked right of it."""
    path = tmp_path / "x.py"
    path.write_text(f"def f():\n    {source}\n")
    ((target, line, guarded),) = _imports("gpupools.domain.x", path)
    assert (target, line, guarded) == (expected[0], 2, False)
    assert (_layer(target) > _layer("gpupools.domain.x")) is expected[1]
