"""The releasable distribution: LICENSE and PEP 639 metadata, the cloud SDKs as extras, an sdist without
the tests or the developer's files, and requirement files whose pins agree with pyproject.toml.

The wheel and sdist are the session's (tests/release/conftest.py ``dist``: built offline from this checkout,
the sdist first and the wheel from the unpacked sdist, as the release workflow does).
"""

from __future__ import annotations

import email.parser
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = re.search(r'^__version__ = "([^"]+)"$', (ROOT / "components" / "gpupools" / "_version.py").read_text(), re.M)[
    1
]
# `gpupools verify` speaks HTTP itself (verify/transport.py): the 126 MB kubernetes client is not a dependency.
BASE_DEPENDENCIES = {"pulumi", "pulumi-kubernetes", "pydantic", "pyyaml", "highspy"}


def _name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9_.-]+", requirement)[0].lower()


# --- LICENSE and pyproject.toml ---------------------------------------------------------------------------


def test_license_is_the_apache_2_0_text() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_pyproject_declares_an_spdx_license_and_a_builder_that_reads_it() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    # PEP 639 license expressions need setuptools 77.
    assert PYPROJECT["build-system"]["requires"] == ["setuptools>=77"]
    assert not any("License ::" in classifier for classifier in project.get("classifiers", []))


def test_cloud_sdks_are_extras() -> None:
    project = PYPROJECT["project"]
    assert {_name(r) for r in project["dependencies"]} == BASE_DEPENDENCIES
    extras = project["optional-dependencies"]
    assert {_name(r) for r in extras["azure"]} == {"pulumi-azure-native"}
    assert {_name(r) for r in extras["aws"]} == {"pulumi-aws", "pulumi-eks"}


# --- requirement files ------------------------------------------------------------------------------------


def _requirement_lines(path: Path) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in path.read_text().splitlines() if line.split("#", 1)[0].strip()]


def test_requirements_pin_every_dependency_within_the_pyproject_ranges() -> None:
    specifiers = pytest.importorskip("packaging.specifiers")
    project = PYPROJECT["project"]
    ranges = {
        _name(r): r[len(_name(r)) :]
        for r in [
            *project["dependencies"],
            *project["optional-dependencies"]["azure"],
            *project["optional-dependencies"]["aws"],
        ]
    }
    lines = _requirement_lines(ROOT / "requirements.txt")
    assert lines[-1] == "-e .[azure,aws]"
    pins = dict(line.split("==") for line in lines[:-1])
    assert {name.lower() for name in pins} == set(ranges)
    for name, version in pins.items():
        assert version in specifiers.SpecifierSet(ranges[name.lower()]), (name, version, ranges[name.lower()])


def test_example_requirements_work_outside_the_repository() -> None:
    """Copied out of the repository, the example installs gpupools from a git URL, not a relative path."""
    path = ROOT / "examples" / "existing-aks-mig" / "requirements.txt"
    lines = _requirement_lines(path)
    assert not [line for line in lines if line.startswith(("-e", "-r", ".", "/")) or "../" in line]
    [library] = [line for line in lines if _name(line) == "gpupools"]
    assert library == f"gpupools[azure] @ git+https://github.com/<org>/gpupools@v{VERSION}"
    assert "replace <org>" in path.read_text()
    repository_pins = dict(line.split("==") for line in _requirement_lines(ROOT / "requirements.txt")[:-1])
    for line in lines:
        if "==" in line:
            name, version = line.split("==")
            assert repository_pins[name] == version, line


# --- the built distributions ------------------------------------------------------------------------------


def _metadata(text: str) -> email.message.Message:
    return email.parser.Parser().parsestr(text)


def _check_metadata(metadata: email.message.Message) -> None:
    assert metadata["Name"] == "gpupools" and metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata.get_all("License-File") == ["LICENSE"]
    requires = metadata.get_all("Requires-Dist")
    assert {_name(r) for r in requires if "extra ==" not in r} == BASE_DEPENDENCIES
    assert {_name(r) for r in requires if 'extra == "azure"' in r} == {"pulumi-azure-native"}
    assert {_name(r) for r in requires if 'extra == "aws"' in r} == {"pulumi-aws", "pulumi-eks"}


def test_sdist_has_the_license_and_the_library_and_nothing_of_the_developer(dist: dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
        pkg_info = archive.extractfile(f"gpupools-{VERSION}/PKG-INFO").read().decode()
        license_text = archive.extractfile(f"gpupools-{VERSION}/LICENSE").read().decode()
    assert {
        "LICENSE",
        "PKG-INFO",
        "pyproject.toml",
        "README.md",
        "components/gpupools/__init__.py",
        "components/gpupools/py.typed",
    } <= names
    assert license_text == (ROOT / "LICENSE").read_text()
    unwanted = [
        name
        for name in names
        if name.split("/")[0]
        in {".venv", ".git", ".github", ".ci", ".hypothesis", ".pytest_cache", "tests", "infra", "build", "dist"}
    ]
    assert not unwanted, unwanted
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    _check_metadata(_metadata(pkg_info))


def test_wheel_carries_the_license_metadata_and_the_cli(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as archive:
        names = set(archive.namelist())
        info = f"gpupools-{VERSION}.dist-info"
        assert archive.read(f"{info}/licenses/LICENSE").decode() == (ROOT / "LICENSE").read_text()
        metadata = _metadata(archive.read(f"{info}/METADATA").decode())
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
    assert {"gpupools/__init__.py", "gpupools/_version.py", "gpupools/py.typed"} <= names
    assert not [name for name in names if name.startswith(("tests/", "infra/", "provider/"))]
    assert "gpupools = gpupools.cli:main" in entry_points
    _check_metadata(metadata)


_WITHOUT_CLOUD_SDKS = """
import importlib, sys
class Uninstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pulumi_aws", "pulumi_eks", "pulumi_azure_native"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Uninstalled())
for module in sys.argv[1:]:
    importlib.import_module(module)
"""


def test_the_base_install_works_without_the_cloud_extras() -> None:
    """`pip install gpupools` (no extra) must still give the config, CLI and Kubernetes components: the
    cloud SDKs are imported only by gpupools.azure / gpupools.aws (and the component provider)."""
    modules = ["gpupools", "gpupools.config", "gpupools.cli", "gpupools.kubernetes"]
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_CLOUD_SDKS, *modules], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    # The blocker works: the cloud modules do need their extra.
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_CLOUD_SDKS, "gpupools.aws"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1 and ("pulumi_aws" in result.stderr or "gpupools[aws]" in result.stderr)


def test_readme_and_plugin_install_the_current_release() -> None:
    """Every `@vX.Y.Z` the README, the docs pages and the plugin file tell users to install is this version's tag,
    which the release workflow creates from _version.py, and the CHANGELOG has that version's section."""
    tag = re.compile(r"gpupools(?:/provider)?@v(\d+\.\d+\.\d+)")
    for path in (ROOT / "README.md", ROOT / "provider" / "PulumiPlugin.yaml"):
        assert set(tag.findall(path.read_text())) == {VERSION}, path.name
    for path in sorted((ROOT / "docs").rglob("*.md")):
        assert set(tag.findall(path.read_text())) <= {VERSION}, path.name
    assert f"## [{VERSION}] - " in (ROOT / "CHANGELOG.md").read_text()
