"""``benchmarks/plan.py`` runs end to end: both clouds planned in fresh subprocesses, JSON results that make sense.

One run with ``--repeat 1 --pools 1,2 --no-warmup`` (6 short subprocesses, about 10 s); the targets are not
asserted here, only that the numbers are measured.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "benchmarks" / "plan.py"


@pytest.fixture(scope="module")
def results() -> dict:
    if not SCRIPT.is_file() or not (REPO_ROOT / "infra" / "__main__.py").is_file():
        pytest.skip("not run from the gpupools repository")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--repeat", "1", "--pools", "1,2", "--json", "--quiet", "--no-warmup"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_both_clouds_measured(results):
    assert set(results["stacks"]) == {"aks", "eks"}
    assert {data["cloud"] for data in results["stacks"].values()} == {"azure", "aws"}
    assert results["pools"] == [1, 2] and results["repeat"] == 1


def test_times_memory_and_floor_are_positive(results):
    for data in results["stacks"].values():
        assert data["floor_ms"] > 0 and data["floor_peak_rss_mib"] > 0
        assert data["floor_modules"] > 0 and data["floor_packages"]
        for row in data["rows"]:
            assert row["plan_ms"] > 0 and row["peak_rss_mib"] > 0 and row["ratio"] > 0
            assert row["resources"] > 0


def test_floor_holds_the_cloud_sdk(results):
    assert "pulumi_azure_native" in results["stacks"]["aks"]["floor_packages"]
    assert "pulumi_aws" not in results["stacks"]["aks"]["floor_packages"]
    assert {"pulumi_aws", "pulumi_eks"} <= set(results["stacks"]["eks"]["floor_packages"])
    for data in results["stacks"].values():
        assert "pulumi_kubernetes" in data["floor_packages"]


def test_resources_grow_with_pools(results):
    for data in results["stacks"].values():
        one, two = data["rows"]
        assert (one["pools"], two["pools"]) == (1, 2)
        assert two["resources"] > one["resources"]
        assert data["slope_ms_per_pool"] is not None


def test_the_quick_check_judges_nothing(results):
    """One unwarmed run over pools 1 and 2 cannot carry a verdict: no PASS or FAIL from noise."""
    assert results["pass"] is None and all(results["not_judged"].values())
    for data in results["stacks"].values():
        assert data["ratio_ok"] is None and data["slope_ok"] is None and data["pass"] is None


@pytest.mark.parametrize(
    "repeat, warmup, pools, judged",
    [
        (3, True, [1, 10, 50], {"ratio": True, "slope": True}),
        (3, True, [1, 2], {"ratio": True, "slope": False}),
        (1, True, [1, 10, 50], {"ratio": False, "slope": False}),
        (5, False, [1, 50], {"ratio": False, "slope": False}),
        (3, True, [10], {"ratio": True, "slope": True}),
    ],
)
def test_what_a_measurement_can_judge(repeat, warmup, pools, judged):
    reasons = _bench_module().unjudged(repeat, warmup, pools)
    assert {target: why is None for target, why in reasons.items()} == judged


def test_strict_refuses_a_quick_check():
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--strict", "--repeat", "1", "--pools", "1,2"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 2 and "--strict needs a measurement that is judged" in proc.stderr


def _bench_module():
    spec = importlib.util.spec_from_file_location("bench_plan", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_slope_and_ratio_pair_runs_of_the_same_round():
    """Rounds on a machine running at different speeds: each round's plans are judged against that round's floor,
    so the share of the floor per pool is the same in every round (4 ms of 980), while the ms per pool move."""
    bench = _bench_module()
    speed = [1.0, 1.5, 1.25]
    base = [{"wall_ms": 1000 * s} for s in speed]
    top = [{"wall_ms": 1196 * s} for s in speed]
    floors = [{"wall_ms": 980 * s} for s in speed]

    slope = bench.paired_slope(base, top, floors, 49, "wall_ms")

    assert slope["ms"] == pytest.approx(5.0)  # the rounds' 4, 6 and 5 ms per pool
    assert slope["share"] == pytest.approx(4 / 980) and slope["share_runs"] == pytest.approx([4 / 980] * 3)
    assert bench.paired_ratio(base, floors, "wall_ms") == pytest.approx(1000 / 980)
    assert bench.paired_slope(base, base, floors, 0, "wall_ms") is None
