"""The Pulumi SDK's private parts are reached from one module only, on SDK versions that module was checked against.

``gpupools.pulumi_internals`` lists each private use and why. Here: no other module of the package touches one
(read with ``ast``), the installed SDK is one of ``CHECKED_PULUMI_VERSIONS`` (else a loud failure naming what to
re-check), and the ``pulumi`` range in ``pyproject.toml`` and the pins say no more than what was checked.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pulumi
import pulumi.provider.experimental
import pulumi.runtime
import pytest
from packaging.version import Version

from gpupools import pulumi_internals
from gpupools.pulumi_internals import CHECKED_PULUMI_VERSIONS, installed_pulumi_version

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "components" / "gpupools"
SEAM = PACKAGE / "pulumi_internals"

# The documented SDK: what these modules export (``rpc`` is an exported submodule whose functions are not documented),
# and the public submodules ``pulumi`` does not list in ``__all__``.
DOCUMENTED = {
    "pulumi": set(pulumi.__all__) | {"log", "provider", "dynamic", "automation"},
    "pulumi.runtime": set(pulumi.runtime.__all__) - {"rpc"},
    "pulumi.provider.experimental": set(pulumi.provider.experimental.__all__),
}
# Names of the private parts the project has used, caught however they are reached (``settings.SETTINGS``, ...).
PRIVATE_NAMES = {
    "_sync_await",
    "_resolve_callbacks",
    "SETTINGS",
    "massage",
    "run_pulumi_func",
    "MockMonitor",
    "ResourceRegistration",
    "serialize_properties",
    "deserialize_properties",
    "is_rpc_secret",
}


def private_uses(source: str) -> list[str]:
    """Each place in ``source`` that reaches a part of the Pulumi SDK outside the documented API."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ImportFrom) and node.level == 0 and _is_pulumi(node.module or ""):
            module = node.module or ""
            for alias in node.names:
                if alias.name not in DOCUMENTED.get(module, set()):
                    found.append(f"{where}: from {module} import {alias.name}")
        elif isinstance(node, ast.Import):
            found += [f"{where}: import {a.name}" for a in node.names if _is_pulumi(a.name) and a.name != "pulumi"]
        elif isinstance(node, ast.Attribute):
            parent = _dotted(node.value)
            if node.attr in PRIVATE_NAMES or (parent in DOCUMENTED and node.attr not in DOCUMENTED[parent]):
                found.append(f"{where}: {ast.unparse(node)}")
        elif isinstance(node, ast.Name) and node.id in PRIVATE_NAMES:
            found.append(f"{where}: {node.id}")
    return found


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of plain names (as ``ast.unparse`` writes it), else None: only such a chain can be a
    module of ``DOCUMENTED``. Cheaper than unparsing each of the package's attribute nodes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _is_pulumi(module: str) -> bool:
    return module == "pulumi" or module.startswith("pulumi.")


def test_no_module_but_the_seam_touches_a_private_sdk_part() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): uses
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.is_relative_to(SEAM) and (uses := private_uses(path.read_text()))
    }
    assert not offenders, f"private Pulumi SDK parts outside gpupools/pulumi_internals/ (move them there): {offenders}"


@pytest.mark.parametrize(
    "source",
    [
        "from pulumi.runtime.sync_await import _sync_await",
        "from pulumi.runtime.mocks import MockMonitor",
        "from pulumi.runtime import settings\nsettings.SETTINGS.outputs = set()",
        "from pulumi.runtime.stack import massage, run_pulumi_func",
        "from pulumi.runtime import rpc",
        "import pulumi\npulumi.runtime.settings.get_root_resource()",
        "import pulumi.runtime.config",
        "from pulumi.output import Unknown",
        "from pulumi.provider.experimental.component import ComponentProvider",
    ],
)
def test_the_check_catches_each_kind_of_private_use(source: str) -> None:
    assert private_uses(source)


def test_the_check_passes_documented_uses() -> None:
    documented = (
        "import pulumi\nfrom pulumi.runtime import set_all_config, Mocks, is_config_secret\n"
        "pulumi.runtime.set_mocks(None)\npulumi.Output.all()\n"
        "from pulumi.provider.experimental import component_provider_host"
    )
    assert private_uses(documented) == []


def test_the_seam_lists_each_private_use_it_makes() -> None:
    docstring = pulumi_internals.__doc__ or ""
    uses = [use for path in sorted(SEAM.glob("*.py")) for use in private_uses(path.read_text())]
    names = {use.rsplit(" ", 1)[-1].rsplit(".", 1)[-1] for use in uses}
    names = {name for name in names if name.isidentifier()}
    assert names, "the seam makes no private use: then it should not exist"
    assert not {name for name in names if name not in docstring}, "say in the docstring why each use is made"


def test_installed_pulumi_was_checked() -> None:
    installed = installed_pulumi_version()
    if installed not in CHECKED_PULUMI_VERSIONS:
        pytest.fail(
            f"pulumi {installed} is installed, but gpupools/pulumi_internals/ was checked only against "
            f"{', '.join(CHECKED_PULUMI_VERSIONS)}. Before adding {installed} to CHECKED_PULUMI_VERSIONS, re-read "
            "each private SDK use its docstring lists against pulumi's source at that version (MockMonitor, "
            "_resolve_callbacks, _sync_await, rpc, SETTINGS, run_pulumi_func, massage, CONFIG, ComponentProvider, "
            "Analyzer), run tests/apps/test_mock_runner.py and tests/apps/test_golden_outputs.py with it, and "
            "widen the pulumi range in pyproject.toml to match.",
            pytrace=False,
        )


def test_pyproject_allows_exactly_the_checked_releases() -> None:
    """``pulumi>=<first checked>,<<patch after the last checked>``: no release below or above what was checked."""
    checked = sorted(Version(v) for v in CHECKED_PULUMI_VERSIONS)
    assert [str(v) for v in checked] == list(CHECKED_PULUMI_VERSIONS), "keep CHECKED_PULUMI_VERSIONS in order"
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in dependencies if re.match(r"pulumi\s*[<>=!~]", d)]
    bounds = re.fullmatch(r"pulumi\s*>=\s*([\d.]+)\s*,\s*<\s*([\d.]+)", spec)
    assert bounds, f"{spec}: say the checked span as pulumi>=X,<Y"
    first, last = checked[0], checked[-1]
    assert Version(bounds[1]) == first, f"{spec}: the lowest release allowed must be the first checked, {first}"
    assert Version(bounds[2]) == Version(f"{last.major}.{last.minor}.{last.micro + 1}"), (
        f"{spec}: the range must end right after the last checked release, {last}"
    )


@pytest.mark.parametrize(
    "pins",
    [
        "requirements.txt",
        "provider/requirements.txt",
        "examples/existing-aks-mig/requirements.txt",
        "examples/existing-eks-team/requirements.txt",
    ],
)
def test_pinned_pulumi_is_a_checked_release(pins: str) -> None:
    (pinned,) = re.findall(r"^pulumi==([\d.]+)$", (ROOT / pins).read_text(), flags=re.MULTILINE)
    assert pinned in CHECKED_PULUMI_VERSIONS
