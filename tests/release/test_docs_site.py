"""The documentation site (mkdocs.yml, MkDocs + Material): it builds with ``--strict`` offline, CI and .ci/run build
it, every page under docs/ is in the nav, and it publishes the stack files' JSON Schema and shows the stack files
as they are.

mkdocs comes from requirements-dev.txt; without it the build test skips, except with CI=true, where it fails.
"""

from __future__ import annotations

import html as htmllib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
IN_CI = os.environ.get("CI", "").lower() == "true"


def _mkdocs_config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    return []


def _mkdocs() -> list[str]:
    beside = Path(sys.executable).parent / "mkdocs"
    found = str(beside) if beside.exists() else shutil.which("mkdocs")
    if found is None:
        if IN_CI:
            pytest.fail("mkdocs is not installed (requirements-dev.txt); CI=true, so this is a failure")
        pytest.skip("mkdocs is not installed (pip install -r requirements-dev.txt)")
    return [found]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as `.ci/run` builds it: strict, into a folder outside the tree, with no network."""
    out = tmp_path_factory.mktemp("site")
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
    }
    run = subprocess.run(
        [*_mkdocs(), "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    return out


def test_every_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    config = _mkdocs_config()
    pages = set(_nav_pages(config["nav"]))
    on_disk = {str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md")}
    assert pages == on_disk, f"only in nav: {sorted(pages - on_disk)}; only on disk: {sorted(on_disk - pages)}"


def test_the_site_is_built_strictly_offline() -> None:
    """Strict, the theme's fonts off (Material loads Roboto from Google Fonts otherwise) and no plugin that fetches."""
    config = _mkdocs_config()
    assert config["strict"] is True and config["theme"] == config["theme"] | {"name": "material", "font": False}
    assert config["plugins"] == ["search"]
    assert all(level == "warn" for level in config["validation"].values()), "strict counts only warnings"


def test_ci_and_ci_run_build_the_site_strictly() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    runs = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    [build] = [run for run in runs if "mkdocs build" in run]
    assert runs.index(build) > runs.index("bash .ci/run"), "the venv with mkdocs is made by .ci/run"
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    [line] = [line for line in ci_run if "mkdocs build" in line and not line.startswith("#")]
    installs = [i for i, text in enumerate(ci_run) if "-r requirements-dev.txt" in text]
    assert installs and installs[0] < ci_run.index(line)
    for command in (build, line):
        words = command.split()
        # --quiet hides the warnings --strict counts: a broken link would pass.
        assert "--strict" in words and not {"-q", "--quiet"} & set(words), command
    pins = (ROOT / "requirements-dev.txt").read_text(encoding="utf-8").splitlines()
    assert {line.split("==")[0] for line in pins if line.startswith("mkdocs")} == {"mkdocs", "mkdocs-material"}
    assert all("==" in line for line in pins if line.startswith("mkdocs"))


def test_the_site_publishes_the_committed_schema(site: Path) -> None:
    published = json.loads((site / "schema" / "stack.schema.json").read_text(encoding="utf-8"))
    assert published == json.loads((ROOT / "schema" / "stack.schema.json").read_text(encoding="utf-8"))
    assert 'href="../../schema/stack.schema.json"' in (site / "reference" / "schema" / "index.html").read_text()


@pytest.mark.parametrize(("page", "stack"), [("stacks/aks", "Pulumi.dev.yaml"), ("stacks/eks", "Pulumi.eks.yaml")])
def test_the_stack_pages_show_the_stack_files_as_they_are(site: Path, page: str, stack: str) -> None:
    """The page's stack file is the file (a snippet read at build time), not a copy that can drift."""
    html = (site / page / "index.html").read_text(encoding="utf-8")
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", html))
    assert (ROOT / stack).read_text(encoding="utf-8").strip() in text
