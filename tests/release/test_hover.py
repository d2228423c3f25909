"""What an editor's hover shows (pyright's language server, the engine behind Pylance), through the package's stub.

``gpupools/__init__.pyi`` names ``GpuPlatform`` without a docstring; the server takes the class's docstring from
the module that defines it. The Args and Outputs sections ``help()`` shows are written at run time, which a
static checker never sees, so hover shows each key's and each output's own docstring where the cursor is: on a
key of an args dict literal and on an output attribute. That is the same text ``help()`` and the schema use.

Skips without pyright (``bash .ci/install-pyright``), except with CI=true, where it fails.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import sysconfig
from pathlib import Path

import pytest

from support.lsp_client import HoverClient

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / ".ci" / "node" / "node_modules" / ".bin" / "pyright-langserver"
ARGS = ROOT / "components" / "gpupools" / "platform" / "args.py"
COMPONENT = ROOT / "components" / "gpupools" / "platform" / "component.py"


def _docstrings(path: Path, class_name: str) -> dict[str, str]:
    """Each annotated attribute of a class and the string after it, read from the file the way the analyzer does."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name).body
    return {
        field.target.id: doc.value.value
        for field, doc in zip(body, body[1:])
        if isinstance(field, ast.AnnAssign)
        and isinstance(field.target, ast.Name)
        and isinstance(doc, ast.Expr)
        and isinstance(doc.value, ast.Constant)
    }


def _folded(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def hover(tmp_path_factory: pytest.TempPathFactory):
    if not SERVER.exists() or shutil.which("node") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("pyright is not installed; CI=true, so this is a failure (.ci/run installs it)")
        pytest.skip("pyright is not installed: run `bash .ci/install-pyright`")
    work = tmp_path_factory.mktemp("hover")
    config = {"extraPaths": [str(ROOT / "components"), sysconfig.get_paths()["purelib"]], "pythonVersion": "3.11"}
    (work / "pyrightconfig.json").write_text(json.dumps(config))
    client = HoverClient(SERVER, work)
    yield client, work
    client.close()


def test_hover_shows_the_component_keys_and_outputs_docstrings(hover) -> None:
    client, work = hover
    keys = _docstrings(ARGS, "GpuPoolArgs")
    outputs = _docstrings(COMPONENT, "GpuPlatform")
    assert len(keys) > 20 and len(outputs) > 10
    lines = ["import gpupools", "from gpupools.platform import GpuPoolArgs", "", "gpupools.GpuPlatform", ""]
    lines += ["pool: GpuPoolArgs = {", *(f'    "{key}": None,' for key in keys), "}", ""]
    lines += ["def outputs(platform: gpupools.GpuPlatform) -> None:", *(f"    platform.{name}" for name in outputs)]
    program = work / "program.py"
    program.write_text("\n".join(lines) + "\n")
    client.open(program)

    shown = client.hover(program, 3, 12)
    first_line = (gpupools_class_doc() or "").splitlines()[0]
    assert "class GpuPlatform(" in shown and first_line in shown, shown

    first_key = lines.index("pool: GpuPoolArgs = {") + 1
    for offset, (key, doc) in enumerate(keys.items()):
        shown = client.hover(program, first_key + offset, 6)
        assert f"(key) {key}:" in shown and _folded(doc) in _folded(shown), (key, shown)
    first_output = len(lines) - len(outputs)
    for offset, (name, doc) in enumerate(outputs.items()):
        shown = client.hover(program, first_output + offset, 14)
        assert f"{name}: Output[" in shown and _folded(doc) in _folded(shown), (name, shown)


def gpupools_class_doc() -> str | None:
    tree = ast.parse(COMPONENT.read_text(encoding="utf-8"))
    return ast.get_docstring(next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "GpuPlatform"))
