"""The docs pages with MIG pictures, opened in a real browser: headless Chromium (Debian's package, installed by
``.ci/install-chromium``) loads the built site, and each picture must load, be at least 600 px wide and show its
smallest text at 11 px or more at the default zoom. One browser session for every page; a screenshot of each page's
first picture is kept under ``.ci/artifacts/docs-pictures/`` (or ``$GPUPOOLS_ARTIFACTS/docs-pictures/``) as the
CI artifact. Skips, saying why, where Chromium is absent."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.chromium import Browser, chromium_path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("fit", "sharing/mig", "capacity")
MIN_WIDTH = 600
MIN_TEXT_PX = 11
WINDOW = (1280, 900)  # a laptop's browser window at 100 % zoom

CHROMIUM = chromium_path()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium on PATH (.ci/install-chromium installs Debian's): pictures not opened in a browser",
)

MEASURE = """(async () => {
  const pictures = [...document.querySelectorAll('img.gpu-picture')];
  await Promise.all(pictures.map(p => p.decode().catch(() => null)));
  if (pictures.length) pictures[0].scrollIntoView({block: 'center'});
  return pictures.map(p => ({src: p.getAttribute('src'), url: p.currentSrc, loaded: p.complete && p.naturalWidth > 0,
    natural: p.naturalWidth, shown: p.getBoundingClientRect().width}));
})()"""


def artifacts() -> Path:
    return Path(os.environ.get("GPUPOOLS_ARTIFACTS") or ROOT / ".ci" / "artifacts") / "docs-pictures"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    return out


def _smallest_font(svg: Path) -> float:
    return min(float(size) for size in re.findall(r'font-size="([0-9.]+)"', svg.read_text("utf-8")))


def test_every_picture_loads_wide_and_readable_in_chromium(site):
    assert CHROMIUM is not None
    seen = []
    with Browser(CHROMIUM, *WINDOW) as browser:
        for page in PAGES:
            browser.open((site / page / "index.html").as_uri())
            found = browser.evaluate(MEASURE)
            assert found, f"{page}: no picture on the page"
            for picture in found:
                assert picture["loaded"], f"{page}: {picture['src']} did not load"
                assert picture["shown"] >= MIN_WIDTH, f"{page}: {picture['src']} is {picture['shown']} px wide"
                svg = (site / page / picture["src"]).resolve()
                text = _smallest_font(svg) * picture["shown"] / picture["natural"]
                assert text >= MIN_TEXT_PX, f"{page}: {picture['src']}'s smallest text is {text:.1f} px"
                seen.append(svg.name)
            browser.screenshot(artifacts() / f"{page.replace('/', '-')}.png")
    assert sorted(seen) == sorted(p.name for p in (ROOT / "docs" / "pictures").glob("*.svg"))
    assert all((artifacts() / f"{page.replace('/', '-')}.png").stat().st_size > 1000 for page in PAGES)
