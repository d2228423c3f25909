"""The docs site's pictures (docs/pictures/*.svg) are the real answers to the shipped examples, drawn now: each is
regenerated here and must equal the committed file; the MIG page's terminal sample is what ``check`` prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpupools.reference_docs.pictures import PICTURES_DIR, REGENERATE_PICTURES, main, pictures
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def drawn() -> dict[str, str]:
    return pictures(ROOT)


def test_the_committed_pictures_are_the_generated_ones(drawn):
    stale = [name for name, text in drawn.items() if (ROOT / PICTURES_DIR / name).read_text("utf-8") != text]
    assert not stale, f"stale: {', '.join(stale)} under {PICTURES_DIR}; regenerate with: {REGENERATE_PICTURES}"


def test_each_picture_is_shown_on_its_page(drawn):
    pages = {"fit-demand.svg": "fit.md", "mig-eks.svg": "sharing/mig.md", "capacity-existing.svg": "capacity.md"}
    assert set(pages) == set(drawn)
    for name, page in pages.items():
        assert f"pictures/{name}){{ .gpu-picture }}" in (ROOT / "docs" / page).read_text("utf-8"), page


def test_check_mode_names_a_stale_picture(tmp_path, monkeypatch, capsys):
    (tmp_path / PICTURES_DIR).mkdir(parents=True)
    for name in ("examples/demand.yaml", "Pulumi.eks.yaml", "Pulumi.existing.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    monkeypatch.chdir(tmp_path)
    assert main(["--check"]) == 1 and "fit-demand.svg" in capsys.readouterr().err
    assert main([]) == 0 and main(["--check"]) == 0


def test_the_mig_page_shows_what_check_draws():
    page = (ROOT / "docs" / "sharing" / "mig.md").read_text("utf-8")
    boxes = [line for line in page.splitlines() if line[:1] in ("┌", "│", "└")]
    run = run_cli("check", "--config", str(ROOT / "Pulumi.eks.yaml"))
    assert run.code == 0 and len(boxes) == 3
    assert "\n".join(boxes) in run.out
