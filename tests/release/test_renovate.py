"""renovate.json's regex managers find every pin the catalog holds: each manager's regex (Renovate's JavaScript
named groups translated to Python's) is applied to the real files its ``managerFilePatterns`` select, and every
chart version, image tag and action SHA of the catalog must be among the matches, so a pin moved or respelled
where the bot cannot see it fails here. The catalog's action table must equal what the workflows pin.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
from pathlib import Path

from gpupools.catalog import action_pins, autoscaler_versions, chart_refs

REPO = Path(__file__).resolve().parents[2]
CONFIG = json.loads((REPO / "renovate.json").read_text())
CHARTS = (
    chart_refs.GPU_OPERATOR,
    chart_refs.DEVICE_PLUGIN,
    chart_refs.DCGM_EXPORTER,
    chart_refs.DRA_DRIVER,
    chart_refs.CLUSTER_AUTOSCALER,
    chart_refs.KARPENTER,
)


def python_regex(javascript: str) -> re.Pattern[str]:
    """Renovate's ``(?<name>...)`` as Python's ``(?P<name>...)``; the rest of these patterns means the same."""
    return re.compile(re.sub(r"\(\?<([A-Za-z]+)>", r"(?P<\1>", javascript))


@functools.cache
def _repository_files() -> tuple[str, ...]:
    """The files Renovate reads: the repository's tracked files. Outside a git checkout, the tree without the
    folders no commit holds (virtual environments, node_modules, caches): walking those took seconds in every
    xdist worker."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
        return tuple(sorted(name for name in listed.decode().split("\0") if name))
    except (OSError, subprocess.CalledProcessError):
        skipped = {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache", "site"}
        found = []
        for folder, dirs, files in os.walk(REPO):
            dirs[:] = [d for d in dirs if d not in skipped]
            found += [Path(folder, name).relative_to(REPO).as_posix() for name in files]
        return tuple(sorted(found))


def _files(patterns: list[str]) -> list[Path]:
    regexes = [python_regex(pattern.strip("/")) for pattern in patterns]
    return [REPO / name for name in _repository_files() if any(r.search(name) for r in regexes)]


@functools.cache
def _matches() -> list[dict[str, str]]:
    found = []
    for manager in CONFIG["customManagers"]:
        files = _files(manager["managerFilePatterns"])
        assert files, f"{manager['description']}: its managerFilePatterns select no file"
        hits = 0
        for path in files:
            text = path.read_text()
            for pattern in manager["matchStrings"]:
                for match in python_regex(pattern).finditer(text):
                    hits += 1
                    found.append({**match.groupdict(), "file": path.relative_to(REPO).as_posix(), **manager})
        assert hits, f"{manager['description']}: no match in {[str(f) for f in files]}"
    return found


def test_every_chart_pin_is_found():
    found = {(m["depName"], m["currentValue"]) for m in _matches() if m.get("depName")}
    assert {(c.name, c.default_version) for c in CHARTS} <= found


def test_every_image_tag_is_found():
    found = {(m["depName"], m["currentValue"]) for m in _matches() if m.get("depName")}
    assert (chart_refs.DCGM_EXPORTER_IMAGE, chart_refs.DCGM_EXPORTER_IMAGE_TAG) in found
    rows = {(m["depType"], m["currentValue"]) for m in _matches() if "autoscaler_versions" in m["file"]}
    assert rows == {(r.minor, r.tag) for r in autoscaler_versions.AUTOSCALER_RELEASES.values()}


def test_every_action_sha_in_the_workflows_is_found_and_in_the_catalog():
    workflows = REPO / ".github" / "workflows"
    uses = set()
    for path in workflows.glob("*.y*ml"):
        uses |= set(re.findall(r"uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # (v[\d.]+)", path.read_text()))
    in_workflows = {
        (m["depName"], m["currentDigest"], m["currentValue"]) for m in _matches() if m["file"].startswith(".github/")
    }
    in_catalog = {
        (m["depName"], m["currentDigest"], m["currentValue"]) for m in _matches() if "action_pins" in m["file"]
    }
    assert uses and uses == in_workflows
    assert in_catalog == {(p.action, p.sha, p.release) for p in action_pins.ACTION_PINS} == uses


def test_every_use_of_an_action_is_pinned_by_sha():
    for path in (REPO / ".github" / "workflows").glob("*.y*ml"):
        for line in path.read_text().splitlines():
            if re.match(r"\s*(- )?uses: ", line):
                assert re.search(r"@[0-9a-f]{40} # v[\d.]+$", line), (path.name, line)


def test_nvidia_charts_are_grouped():
    nvidia = next(rule for rule in CONFIG["packageRules"] if rule.get("groupName") == "NVIDIA GPU software")
    for chart in (chart_refs.GPU_OPERATOR, chart_refs.DEVICE_PLUGIN, chart_refs.DCGM_EXPORTER):
        assert chart.name in nvidia["matchPackageNames"]
    assert chart_refs.DCGM_EXPORTER_IMAGE in nvidia["matchPackageNames"]
