"""Types reach the IDE: every public name of the installed package has a known type (``pyright --verifytypes``),
``from gpupools import GpuPlatform`` is the class and not ``Any``, and the stub that says so matches the module.

pyright 1.1.414 comes from npm through ``.ci/install-pyright`` (into .ci/node, gitignored); without it these
tests skip, except with CI=true, where they fail. pyright does not follow setuptools' editable finder, so the
package is installed here as a plain directory: the session's wheel (tests/release/conftest.py ``dist``, built
once for every release test) through ``pip install --target``, offline, without byte-compiling (pyright reads
sources), and put on the search path with PYTHONPATH; the SDKs come from this environment (its python first on
PATH: ``--verifytypes`` ignores ``--pythonpath``).
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gpupools

ROOT = Path(__file__).resolve().parents[2]
PYRIGHT = ROOT / ".ci" / "node" / "node_modules" / ".bin" / "pyright"
STUB = ROOT / "components" / "gpupools" / "__init__.pyi"
IN_CI = os.environ.get("CI", "").lower() == "true"


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason}; CI=true, so this is a failure (.ci/run installs the tool)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def installed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as pip installs it (not editable), in a folder of its own."""
    if not PYRIGHT.exists() or shutil.which("node") is None:
        _unavailable("pyright is not installed: run `bash .ci/install-pyright` (npm pyright@1.1.414)")
    wheel: Path = request.getfixturevalue("dist")["wheel"]  # only once pyright is known to run
    target = tmp_path_factory.mktemp("types") / "site"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-index",
            "--no-deps",
            "--no-compile",
            "--disable-pip-version-check",
            "--quiet",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    return target


def _pyright(installed: Path, *args: str, cwd: Path | None = None) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PYTHONPATH"] = str(installed)
    # --verifytypes ignores --pythonpath and asks the `python` on PATH for its search paths: this one's first.
    env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), env.get("PATH", "")))
    result = subprocess.run(
        [str(PYRIGHT), *args, "--pythonpath", sys.executable, "--outputjson"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=cwd or installed,
    )
    assert result.stdout.startswith("{"), result.stdout[-2000:] + result.stderr[-2000:]
    return json.loads(result.stdout)


def test_public_api_is_fully_typed(installed: Path) -> None:
    """Every exported symbol has a known type, the argument models' fields included (issue 17)."""
    report = _pyright(installed, "--verifytypes", "gpupools", "--ignoreexternal")["typeCompleteness"]
    assert report["packageRootDirectory"] == str(installed / "gpupools")
    assert report["pyTypedPath"], "py.typed is not shipped"
    counts = report["exportedSymbolCounts"]
    assert counts["withKnownType"] > 2000, counts  # the package was found and walked
    incomplete = [
        f"{symbol['name']}: {'; '.join(d['message'].splitlines()[0] for d in symbol['diagnostics'])}"
        for symbol in report["symbols"]
        if symbol["isExported"] and not symbol["isTypeKnown"]
    ]
    assert not incomplete, (
        f"{len(incomplete)} public symbols without a known type "
        f"(score {report['completenessScore']:.2%}):\n" + "\n".join(incomplete[:80])
    )
    assert counts["withUnknownType"] == 0 and counts["withAmbiguousType"] == 0, counts
    assert report["completenessScore"] == 1, report["completenessScore"]


USER_PROGRAM = """\
from gpupools import GpuPlatform, GpuPlatformArgs, load_stack

reveal_type(GpuPlatform)
reveal_type(GpuPlatformArgs)
reveal_type(load_stack)
platform = GpuPlatform("gpu", args=42)
"""


def test_readme_import_is_the_class_for_the_ide(installed: Path, tmp_path: Path) -> None:
    """The README's ``from gpupools import GpuPlatform`` is the class to pyright, so a wrong argument is flagged."""
    (tmp_path / "program.py").write_text(USER_PROGRAM)
    diagnostics = _pyright(installed, "program.py", cwd=tmp_path)["generalDiagnostics"]
    revealed = [d["message"] for d in diagnostics if d["severity"] == "information"]
    assert revealed[0] == 'Type of "GpuPlatform" is "type[GpuPlatform]"', revealed
    assert revealed[1] == 'Type of "GpuPlatformArgs" is "type[GpuPlatformArgs]"', revealed
    assert revealed[2].startswith('Type of "load_stack" is "(') and "Stack" in revealed[2], revealed
    errors = [d for d in diagnostics if d["severity"] == "error"]
    assert [d["range"]["start"]["line"] for d in errors] == [5], errors
    assert '"Literal[42]"' in errors[0]["message"] and "GpuPlatformArgs" in errors[0]["message"], errors


def _stub_imports() -> dict[str, tuple[str, str]]:
    """Each name the stub re-exports: its source module and name there."""
    names: dict[str, tuple[str, str]] = {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.ImportFrom):
            module = "gpupools" + ("." + node.module if node.module else "") if node.level else node.module
            for alias in node.names:
                if alias.asname == alias.name:
                    names[alias.name] = (str(module), alias.name)
    return names


def test_stub_matches_the_module() -> None:
    """``__init__.pyi`` says what ``gpupools`` exports (it exists for the lazily loaded ``GpuPlatform``):
    the same names as ``__all__``, each the very object the module gives at run time."""
    exported = _stub_imports()
    assert sorted(exported) == sorted(gpupools.__all__)
    for name, (module, attribute) in exported.items():
        assert getattr(gpupools, name) is getattr(importlib.import_module(module), attribute), name
