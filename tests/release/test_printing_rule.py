"""One rule for what gpupools prints (issue 36), held by structure: every ``print(...)`` and ``sys.stdout.write``
/ ``sys.stderr.write`` in the package prints text that went through the one function of its destination
(``untrusted.text``: ``shown`` for a terminal, ``markdown_safe`` for Markdown, ``json_text`` for JSON) or a
report printer built on them (``cli.check.print_lines``, ``verify.report``'s ``RENDERERS``).

Read from the source with ``ast``, as the layer test is: an argument is safe when it is a constant, a call of one
of ``SAFE_CALLS``, a ``"...".join`` of safe items, or an f-string whose every value is safe or a count. The
allowlist of exceptions is empty and may only stay so.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "components" / "gpupools"
# The destination functions, the report printers built on them, and texts that are ours alone (the JSON schema of
# our own models; a Problem's text, which is ``text.located``).
SAFE_CALLS = {
    "shown",
    "markdown_safe",
    "json_text",
    "located",
    "schema_text",
    "str_problem",
    "render_yaml",
    "layout_text",
}
# render_yaml: yaml.safe_dump_all without allow_unicode writes every non-printable and non-ASCII character as a
# double-quoted escape. layout_text: the MIG pictures, whose names went through shown before the picture's own
# box characters and colours were added (tests/cli/test_pictures.py's hostile names).
SAFE_TABLES = {"RENDERERS"}  # verify.report's renderers: each line through shown, markdown_safe or json_text
COUNTS = {"len", "int"}
SAFE_NAMES = {"problem"}  # a config.errors.Problem: its __str__ is text.located
# A development tool that writes no user text (the reference pages' generator's own messages).
OUT_OF_SCOPE = {"reference_docs/__main__.py"}
ALLOWLIST: set[tuple[str, int]] = set()  # (file, line) that break the rule today; may only shrink


def _safe(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(_safe(part.value) if isinstance(part, ast.FormattedValue) else True for part in node.values)
    if isinstance(node, ast.Name):  # a Problem, or a constant of ours (MAX_ARGUMENTS)
        return node.id in SAFE_NAMES or node.id.isupper()
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name in SAFE_CALLS or name in COUNTS:
            return True
        if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name) and func.value.id in SAFE_TABLES:
            return True
        if name == "join" and node.args:
            item = node.args[0]
            if isinstance(item, (ast.List, ast.Tuple)):
                return all(_safe(element) for element in item.elts)
            if isinstance(item, ast.Call):  # a safe call's lines
                return _safe(item)
            return isinstance(item, (ast.GeneratorExp, ast.ListComp)) and _safe(item.elt)
    return False


def _printing_calls(tree: ast.AST) -> list[ast.Call]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print":
            found.append(node)
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "write"
            and isinstance(func.value, ast.Attribute)
            and func.value.attr in ("stdout", "stderr")
        ):
            found.append(node)
    return found


def unsafe_prints(source: str) -> list[int]:
    """The lines of ``source`` that print something not made safe for its destination."""
    return [call.lineno for call in _printing_calls(ast.parse(source)) if call.args and not _safe(call.args[0])]


def test_every_print_goes_through_its_destinations_function() -> None:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = str(path.relative_to(PACKAGE))
        if relative in OUT_OF_SCOPE:
            continue
        found |= {(relative, line) for line in unsafe_prints(path.read_text(encoding="utf-8"))}
    assert found == ALLOWLIST, sorted(found - ALLOWLIST)


def test_the_rule_catches_a_raw_value() -> None:
    """A test of the test: a value printed raw, in each shape, is found; the same through shown is not."""
    raw = [
        "print(name)",
        "print(f'pool {pool.name}')",
        "sys.stdout.write(text)",
        "print(json.dumps(document))",
        "print('\\n'.join(lines))",
    ]
    for source in raw:
        assert unsafe_prints(source) == [1], source
    safe = ["print(shown(name))", "print(f'pool {shown(pool.name)}: {len(x)}')", "print(json_text(d))", "print('x')"]
    for source in safe:
        assert unsafe_prints(source) == [], source
