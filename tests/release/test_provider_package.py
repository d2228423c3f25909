"""provider/ installs the way Pulumi installs a Python component package: PulumiPlugin.yaml holds only
what Pulumi reads from it, and `pip install -r requirements.txt` works with provider/ as the working
directory (Pulumi runs pip there). pip runs offline (--no-index, --no-deps) against this venv."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.packaging import building_from_the_checkout
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROVIDER = ROOT / "provider"

# https://www.pulumi.com/docs/reference/pulumiplugin-yaml/: `runtime` (required) and `main` (optional).
# The plugin's virtual environment is Pulumi's to create, so no runtime options belong here.
ALLOWED_KEYS = {"runtime", "main"}
RUNTIMES = {"nodejs", "python", "go", "dotnet", "java"}


def test_plugin_manifest_has_only_the_documented_keys() -> None:
    manifest = yaml.safe_load((PROVIDER / "PulumiPlugin.yaml").read_text())
    assert isinstance(manifest, dict) and set(manifest) <= ALLOWED_KEYS, manifest
    assert manifest["runtime"] == "python", "runtime is a plain name, without toolchain/virtualenv options"
    assert manifest["runtime"] in RUNTIMES
    # Without `main`, Pulumi runs __main__.py at the package root.
    entry = PROVIDER / manifest.get("main", "__main__.py")
    assert entry.is_file(), entry


def _setuptools_can_build_this_project() -> None:
    """The editable install below prepares metadata with this venv's setuptools (no build isolation, no
    network); PEP 639's `license = "Apache-2.0"` needs setuptools 77 or later."""
    import setuptools

    major = int(setuptools.__version__.split(".")[0])
    if major < 77:
        pytest.skip(
            f"setuptools {setuptools.__version__} in this venv cannot read pyproject.toml's SPDX license "
            "(needs >=77; requirements-dev.txt pins it)"
        )


def _pip_dry_run(cwd: Path, requirements: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "--quiet",
            "--report",
            "-",
            "-r",
            requirements,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PIP_NO_INPUT": "1", "PIP_CONFIG_FILE": os.devnull},
    )


@pytest.mark.parametrize("where", [PROVIDER, ROOT], ids=["provider", "repository-root"])
def test_requirements_install_this_project_with_both_clouds_from_their_own_directory(
    where: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _setuptools_can_build_this_project()
    with building_from_the_checkout(tmp_path_factory):  # pip prepares the editable checkout's metadata there
        result = _pip_dry_run(where, "requirements.txt")
    assert result.returncode == 0, result.stderr
    [gpupools] = [item for item in json.loads(result.stdout)["install"] if item["metadata"]["name"] == "gpupools"]
    assert gpupools["download_info"]["url"] == ROOT.as_uri()
    assert gpupools["download_info"]["dir_info"] == {"editable": True}
    assert sorted(gpupools["requested_extras"]) == ["aws", "azure"]


def test_a_requirement_relative_to_the_repository_root_fails_inside_provider(tmp_path: Path) -> None:
    """The shape this file used to have (`-r ../requirements.txt`, whose `-e .` is read relative to the
    working directory): pip inside provider/ looks for a project in provider/ and fails."""
    (tmp_path / "requirements.txt").write_text("-e .\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    provider = tmp_path / "provider"
    provider.mkdir()
    (provider / "requirements.txt").write_text("-r ../requirements.txt\n")
    result = _pip_dry_run(provider, "requirements.txt")
    assert result.returncode != 0
    assert f"{provider.as_uri()} " in result.stderr and "does not appear to be a Python project" in result.stderr


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[name.strip().lower()] = version.strip()
    return pins


def test_provider_pins_are_the_repository_pins() -> None:
    assert _pins(PROVIDER / "requirements.txt") == _pins(ROOT / "requirements.txt")
