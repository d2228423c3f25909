"""Cost in ``gpupools plan`` and in the ``--base`` diff, from the packaged snapshot (tests/conftest.py keeps any
local price cache out): the dev stack moved to eastus, where the snapshot prices Standard_ND96asr_v4."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupools.catalog.prices import snapshot
from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
NODE = snapshot().lookup("Standard_ND96asr_v4", "eastus", "onDemand")


def _stack(folder: Path, name: str, profile: str, location: str = "eastus") -> Path:
    text = (REPO / "Pulumi.dev.yaml").read_text().replace("southcentralus", location)
    path = folder / f"Pulumi.{name}.yaml"
    path.write_text(text.replace("profile: MIG1g", f"profile: {profile}"))
    (folder / "Pulumi.yaml").write_text("name: gpupools\nruntime: python\n")
    (folder / "__main__.py").write_text("from gpupools.platform.program import main\n\nmain()\n")
    return path


def test_plan_shows_hour_month_and_slice_price_with_source(tmp_path: Path) -> None:
    run = run_cli("plan", "--config", str(_stack(tmp_path, "dev", "MIG1g")))
    assert run.code == 0, run.err
    [line] = [line for line in run.out.splitlines() if line.startswith("  pool mig1g (")]
    assert f"${NODE.usd_per_hour:,.2f}/h per node" in line and f"${NODE.usd_per_hour * 730:,.2f}/month" in line
    assert f"nvidia.com/gpu ${NODE.usd_per_hour / 56:,.4f}/slice-h" in line
    assert f"{NODE.source} (retrieved {NODE.retrieved})" in line
    assert run.out.count("no discounts, reservations or savings plans") == 1


def test_plan_json_carries_the_same_figures_and_unknown_is_null(tmp_path: Path) -> None:
    known = json.loads(run_cli("plan", "--json", "--config", str(_stack(tmp_path, "dev", "MIG1g"))).out)["cost"]
    assert known["pools"][0]["nodeHourly"] == NODE.usd_per_hour
    assert known["monthly"] == pytest.approx(NODE.usd_per_hour * 730)
    assert known["pools"][0]["sliceHourly"] == {"nvidia.com/gpu": pytest.approx(NODE.usd_per_hour / 56)}
    other = tmp_path / "other"
    other.mkdir()
    unknown = json.loads(run_cli("plan", "--json", "--config", str(_stack(other, "dev", "MIG1g", "westeurope"))).out)
    pool = unknown["cost"]["pools"][0]
    assert pool["nodeHourly"] is None and pool["monthly"] is None and unknown["cost"]["monthly"] is None


def test_base_diff_mig1g_to_mig3g_slice_price_and_surge(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    base.write_text(run_cli("plan", "--json", "--config", str(_stack(tmp_path, "dev", "MIG1g"))).out)
    head = _stack(tmp_path, "head", "MIG3g")
    text = run_cli("plan", "--config", str(head), "--base", str(base)).out.splitlines()
    node = NODE.usd_per_hour
    assert text[0].endswith("; no change in list price")  # same node, same count: the month does not change
    [pool] = [line for line in text if line.startswith("  cost mig1g:")]
    # One slice goes from 1/56 to 1/16 of the node's price; both generations run for a while (surge).
    assert f"nvidia.com/gpu ${node / 56:,.4f} → ${node / 16:,.4f}/slice-h" in pool
    assert f"surge: ${2 * node:,.2f}/h while both generations exist" in pool
    markdown = run_cli("plan", "--config", str(head), "--base", str(base), "--format", "markdown").out
    assert markdown.splitlines()[0].startswith("**:warning: This change REMOVES GPU capacity")
    assert markdown.splitlines()[0].endswith("; no change in list price**")
    diff = json.loads(run_cli("plan", "--json", "--config", str(head), "--base", str(base)).out)["diff"]
    assert diff["cost"]["pools"][0]["surgeHourly"] == pytest.approx(2 * node)


def test_base_diff_says_adds_or_saves_per_month(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    base.write_text(run_cli("plan", "--json", "--config", str(_stack(tmp_path, "dev", "MIG1g"))).out)
    head = _stack(tmp_path, "two", "MIG1g")
    head.write_text(head.read_text().replace("count: 1\n      mig", "count: 2\n      mig"))
    first = run_cli("plan", "--config", str(head), "--base", str(base)).out.splitlines()[0]
    assert first.endswith(f"; adds ${NODE.usd_per_hour * 730:,.2f}/month"), first
    shrink = run_cli("plan", "--json", "--config", str(head)).out
    (tmp_path / "two.json").write_text(shrink)
    back = run_cli("plan", "--config", str(_stack(tmp_path, "dev", "MIG1g")), "--base", str(tmp_path / "two.json"))
    assert back.out.splitlines()[0].endswith(f"; saves ${NODE.usd_per_hour * 730:,.2f}/month")
