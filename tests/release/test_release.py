"""The release workflow and its two scripts: a tag must match _version.py, and the release notes are the
CHANGELOG.md section of that version. The scripts run here exactly as the workflow runs them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / ".github" / "scripts"
VERSION_FILE = ROOT / "components" / "gpupools" / "_version.py"

CHANGELOG = """\
# Changelog

## [Unreleased]
### Added
- Not released yet.

## [1.2.0] - 2026-12-01
### Added
- Extras `gpupools[azure]` and `gpupools[aws]`.

### Fixed
- A [linked](https://example.com) fix.

## [1.1.0] - 2026-11-30

## [1.0.0] - 2026-11-21
- First.

[Unreleased]: https://github.com/org/gpupools/compare/v1.2.0...HEAD
[1.2.0]: https://github.com/org/gpupools/compare/v1.1.0...v1.2.0
"""


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPTS / script), *args], capture_output=True, text=True, timeout=60)


def _current_version() -> str:
    match = re.search(r'^__version__ = "([^"]+)"$', VERSION_FILE.read_text(), re.M)
    assert match, "components/gpupools/_version.py has no __version__ line"
    return match.group(1)


# --- check_tag_version.py -------------------------------------------------------------------------------


def test_tag_matching_the_version_file_passes() -> None:
    version = _current_version()
    result = _run("check_tag_version.py", f"v{version}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == f"version={version}\n"


@pytest.mark.parametrize("tag", ["v9.9.9", "v0.0.0", "1.2.3", "v1.2", "v1.2.3-rc1", "release-1.2.3", ""])
def test_other_tags_are_refused(tmp_path: Path, tag: str) -> None:
    version_file = tmp_path / "_version.py"
    version_file.write_text('"""Version."""\n\n__version__ = "1.2.3"\n')
    result = _run("check_tag_version.py", tag, str(version_file))
    # The annotation goes to stderr: the workflow sends stdout to $GITHUB_OUTPUT.
    assert result.returncode == 1 and result.stderr.startswith("::error title=Release refused::"), result.stderr
    assert result.stdout == ""


def test_the_version_file_is_parsed_not_imported(tmp_path: Path) -> None:
    version_file = tmp_path / "_version.py"
    version_file.write_text('raise SystemExit("imported")\n__version__ = "2.0.1"\n')
    result = _run("check_tag_version.py", "v2.0.1", str(version_file))
    assert (result.returncode, result.stdout) == (0, "version=2.0.1\n"), result.stderr


# --- changelog_section.py -------------------------------------------------------------------------------


def test_section_is_the_body_under_the_heading_up_to_the_next_heading(tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(CHANGELOG)
    result = _run("changelog_section.py", "1.2.0", str(changelog))
    assert result.returncode == 0, result.stdout
    assert result.stdout == (
        "### Added\n- Extras `gpupools[azure]` and `gpupools[aws]`.\n\n### Fixed\n"
        "- A [linked](https://example.com) fix.\n"
    )


def test_last_section_stops_at_the_link_definitions(tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(CHANGELOG)
    result = _run("changelog_section.py", "1.0.0", str(changelog))
    assert (result.returncode, result.stdout) == (0, "- First.\n")


@pytest.mark.parametrize(
    ("version", "why"), [("1.3.0", "has no section"), ("1.1.0", "has an empty section"), ("1.2", "has no section")]
)
def test_missing_or_empty_section_fails(tmp_path: Path, version: str, why: str) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(CHANGELOG)
    result = _run("changelog_section.py", version, str(changelog))
    assert result.returncode == 1 and result.stderr.startswith("::error") and why in result.stderr, result.stderr
    assert result.stdout == ""


def test_the_repository_changelog_has_notes_for_the_current_version() -> None:
    """What the release workflow would publish for a tag made now."""
    result = _run("changelog_section.py", _current_version())
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip() and not result.stdout.startswith("## ")


# --- the workflow -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def release() -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())


def test_release_runs_on_version_tags_only(release: dict) -> None:
    triggers = release.get("on", release.get(True))
    assert triggers == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}}
    assert release["permissions"] == {"contents": "read"}
    assert release["jobs"]["release"]["permissions"] == {"contents": "write"}


def test_release_checks_tests_builds_then_publishes(release: dict) -> None:
    steps = release["jobs"]["release"]["steps"]
    runs = [step.get("run", "") for step in steps]

    def index(needle: str) -> int:
        [found] = [i for i, run in enumerate(runs) if needle in run]
        return found

    check, notes = index("check_tag_version.py"), index("changelog_section.py")
    test, build, publish = index("python -m pytest"), index("python -m build"), index("gh release create")
    assert check < notes < test < build < publish
    assert steps[check]["env"]["TAG"] == "${{ github.ref_name }}" and '"$TAG"' in runs[check]
    assert steps[notes]["env"]["VERSION"] == "${{ steps.version.outputs.version }}"
    assert "--notes-file" in runs[publish] and "dist/*" in runs[publish] and "--verify-tag" in runs[publish]
    # Only the publish step holds the write token.
    assert [i for i, step in enumerate(steps) if "github.token" in str(step.get("env", {}))] == [publish]
