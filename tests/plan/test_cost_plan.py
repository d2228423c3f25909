"""Cost in ``gpupools plan`` and in the ``--base`` diff, from the packaged snapshot (tests/conftest.py keeps any
local price cache out): the dev stack moved to eastus, where the snapshot prices Standard_ND96asr_v4; a p5e
Capacity Block and an on-demand p5e pool in us-east-2; an H200 pool in eastus2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupools.catalog.prices import snapshot
from support.base_configs import PINNED_AWS, PINNED_AZURE, config
from support.cli import run_cli
from support.stack_files import write_stack_file

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
    assert f"${NODE.per_hour:,.2f}/h per node" in line and f"${NODE.per_hour * 730:,.2f}/month" in line
    assert f"nvidia.com/gpu ${NODE.per_hour / 56:,.4f}/slice-h" in line
    assert f"{NODE.source} (retrieved {NODE.retrieved})" in line
    assert run.out.count("no discounts, reservations or savings plans") == 1


def test_plan_json_carries_the_same_figures_and_unknown_is_null(tmp_path: Path) -> None:
    known = json.loads(run_cli("plan", "--json", "--config", str(_stack(tmp_path, "dev", "MIG1g"))).out)["cost"]
    assert known["pools"][0]["nodeHourly"] == NODE.per_hour
    assert known["monthly"] == pytest.approx(NODE.per_hour * 730)
    assert known["pools"][0]["sliceHourly"] == {"nvidia.com/gpu": pytest.approx(NODE.per_hour / 56)}
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
    node = NODE.per_hour
    assert text[0].endswith("; no change in list price")  # same node, same count: the month does not change
    [pool] = [line for line in text if line.startswith("  cost mig1g:")]
    # One slice goes from 1/56 to 1/16 of the node's price; both generations run for a while (surge).
    assert f"nvidia.com/gpu ${node / 56:,.4f} → ${node / 16:,.4f}/slice-h" in pool
    assert f"surge: ${2 * node:,.2f}/h while both generations exist" in pool
    markdown = run_cli("plan", "--config", str(head), "--base", str(base), "--format", "markdown").out
    assert markdown.splitlines()[0].startswith("### `head` (azure): :warning: This change REMOVES GPU capacity")
    assert markdown.splitlines()[0].endswith("; no change in list price")
    diff = json.loads(run_cli("plan", "--json", "--config", str(head), "--base", str(base)).out)["diff"]
    assert diff["cost"]["pools"][0]["surgeHourly"] == pytest.approx(2 * node)


def test_base_diff_says_adds_or_saves_per_month(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    base.write_text(run_cli("plan", "--json", "--config", str(_stack(tmp_path, "dev", "MIG1g"))).out)
    head = _stack(tmp_path, "two", "MIG1g")
    head.write_text(head.read_text().replace("count: 1\n      mig", "count: 2\n      mig"))
    first = run_cli("plan", "--config", str(head), "--base", str(base)).out.splitlines()[0]
    assert first.endswith(f"; adds ${NODE.per_hour * 730:,.2f}/month"), first
    shrink = run_cli("plan", "--json", "--config", str(head)).out
    (tmp_path / "two.json").write_text(shrink)
    back = run_cli("plan", "--config", str(_stack(tmp_path, "dev", "MIG1g")), "--base", str(tmp_path / "two.json"))
    assert back.out.splitlines()[0].endswith(f"; saves ${NODE.per_hour * 730:,.2f}/month")


def _plan(tmp_path: Path, raw: dict, *args: str):
    run = run_cli("plan", "--config", str(write_stack_file(tmp_path, raw, "cost")), *args)
    assert run.code == 0, run.err
    return run.out


def _whole_gpus(base: dict, pool: dict, **cluster: str) -> dict:
    """``base`` with one pool of whole GPUs (8 nvidia.com/gpu per node on these sizes) in another region."""
    raw = config(base, **{"cluster": cluster})
    raw["gpupools:gpuPools"] = [pool]
    return raw


P5E_BLOCK = {
    "name": "p5e",
    "size": "p5e.48xlarge",
    "count": 2,
    "capacityType": "CAPACITY_BLOCK",
    # A block is billed for what it reserves, up front for its length (issue 27): a 31-day block of 2 instances.
    "capacityReservation": {"id": "cr-0123456789abcdef0", "instances": 2, "days": 31},
    "subnetIds": ["subnet-0aaa1111"],
}


def test_capacity_block_pool_is_priced_at_the_published_rate_with_its_caveat(tmp_path: Path) -> None:
    """AWS's Capacity Blocks pricing page showed $47.76 per p5e.48xlarge-hour in us-east-2 (scraped 2026-07-22):
    two nodes, eight H200 each."""
    raw = _whole_gpus(PINNED_AWS, P5E_BLOCK, region="us-east-2")
    [line] = [line for line in _plan(tmp_path, raw).splitlines() if line.startswith("  pool p5e (")]
    assert line.startswith(
        "  pool p5e (p5e.48xlarge, us-east-2, Capacity Block): $47.76/h per node, $95.52/h for "
        "2 reserved instances, $69,729.60/month ($71,066.88 up front for 31 days); nvidia.com/gpu $5.9700/slice-h; "
        "price: "
    ), line
    assert "pricing page showed on 2026-07-22; a block is paid up front at the rate of the day it is bought" in line
    cost = json.loads(run_cli("plan", "--json", "--config", str(tmp_path / "Pulumi.cost.yaml")).out)["cost"]
    assert cost["pools"][0]["capacity"] == "capacityBlock" and cost["pools"][0]["nodeHourly"] == 47.76
    markdown = _plan(tmp_path, raw, "--format", "markdown")
    assert "| p5e | p5e.48xlarge | us-east-2 | Capacity Block | $47.76 | $95.52 |" in markdown


def test_an_on_demand_p5e_pool_says_aws_publishes_no_price_and_why(tmp_path: Path) -> None:
    pool = {**P5E_BLOCK, "capacityType": "ON_DEMAND", "capacityReservation": "cr-0123456789abcdef0"}
    raw = _whole_gpus(PINNED_AWS, pool, region="us-east-2")
    [line] = [line for line in _plan(tmp_path, raw).splitlines() if line.startswith("  pool p5e (")]
    assert line.startswith(
        "  pool p5e (p5e.48xlarge, us-east-2, on-demand): unknown (AWS publishes no On-Demand "
        "price for p5e.48xlarge in any region: it is sold through EC2 Capacity Blocks"
    ), line
    assert "https://github.com/tsaol/aws-gpu/blob/" in line


def test_h200_on_aks_is_priced_where_the_snapshot_has_it(tmp_path: Path) -> None:
    """Standard_ND96isr_H200_v5 in eastus2 at $84.80/h, which its source also gives as $10.60 per GPU-hour."""
    pool = {"name": "h200", "size": "Standard_ND96isr_H200_v5", "count": 1}
    raw = _whole_gpus(PINNED_AZURE, pool, location="eastus2")
    [line] = [line for line in _plan(tmp_path, raw).splitlines() if line.startswith("  pool h200 (")]
    assert "$84.80/h per node" in line and "nvidia.com/gpu $10.6000/slice-h" in line, line
