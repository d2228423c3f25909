"""The plan's date on the command line, places and the catalog listing, as a user runs them (conftest.py sets
SOURCE_DATE_EPOCH to 2026-11-25)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]


def _stack(tmp_path: Path, source: str, old: str, new: str) -> str:
    text = (REPO / source).read_text()
    assert old in text
    path = tmp_path / f"Pulumi.t{abs(hash(new)) % 1000}.yaml"
    path.write_text(text.replace(old, new))
    return str(path)


@pytest.mark.parametrize("value", ["yesterday", "-5", "1795564800.5", "\x1b[31m"])
def test_a_malformed_source_date_epoch_is_one_error_line(monkeypatch, value):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    run = run_cli("check", "--config", str(REPO / "Pulumi.dev.yaml"))
    assert run.code == 2 and run.out == ""
    (line,) = run.err.splitlines()
    assert line.startswith("error: SOURCE_DATE_EPOCH=") and "\x1b" not in line


def test_plan_shows_its_date_in_every_format():
    stack = str(REPO / "Pulumi.eks.yaml")
    assert "plan date: 2026-11-25 (SOURCE_DATE_EPOCH)" in run_cli("plan", "--config", stack).out.splitlines()[1]
    assert json.loads(run_cli("plan", "--json", "--config", stack).out)["planDate"] == {
        "date": "2026-11-25",
        "source": "SOURCE_DATE_EPOCH",
    }
    assert (
        "_plan date: 2026-11-25 (SOURCE_DATE_EPOCH)_" in run_cli("plan", "--format", "markdown", "--config", stack).out
    )


def test_two_runs_on_one_date_print_identical_bytes():
    stack = str(REPO / "Pulumi.dev.yaml")
    assert run_cli("plan", "--json", "--config", stack).out == run_cli("plan", "--json", "--config", stack).out


def test_eks_136_with_the_autoscaler_plans_a_136_image(tmp_path):
    path = _stack(
        tmp_path,
        "Pulumi.eks.yaml",
        'kubernetesVersion: "1.35"',
        'kubernetesVersion: "1.36"\n    autoscaler: {install: true}',
    )
    run = run_cli("plan", "--json", "--config", path)
    assert run.code == 0, run.err
    releases = [r for r in json.loads(run.out)["resources"] if r["type"] == "kubernetes:helm.sh/v3:Release"]
    (autoscaler,) = [r for r in releases if r["inputs"]["chart"] == "cluster-autoscaler"]
    assert autoscaler["inputs"]["values"]["image"]["tag"].startswith("v1.36.")


def test_eks_129_is_refused(tmp_path):
    run = run_cli("check", "--config", _stack(tmp_path, "Pulumi.eks.yaml", '"1.35"', '"1.29"'))
    assert run.code == 2 and "cluster.kubernetesVersion: 1.29 reached the end of all EKS support" in run.err


def test_the_dev_stack_is_in_standard_support_on_its_date():
    run = run_cli("check", "--config", str(REPO / "Pulumi.dev.yaml"))
    assert run.code == 0, run.err


def test_catalog_lists_every_kind_of_pinned_fact_with_sources_and_dates():
    run = run_cli("catalog", "--json")
    assert run.code == 0, run.err
    document = json.loads(run.out)
    assert document["planDate"]["date"] == "2026-11-25"
    kinds = {fact["kind"] for fact in document["facts"]}
    assert kinds == {"chart", "image", "autoscaler image", "kubernetes", "price snapshot", "offer snapshot", "action"}
    assert all(fact["source"] and fact["read"] for fact in document["facts"])
    by_name = {fact["name"]: fact for fact in document["facts"]}
    assert by_name["gpu-operator"]["newer"].startswith("v26.7.1")
    assert by_name["dra-driver-nvidia-gpu"]["newer"].startswith("0.5.0")
    assert by_name["EKS 1.29"]["status"] == "ended"
    assert by_name["AKS 1.34"]["status"] == "ends soon" and by_name["AKS 1.34"]["until"] == "2026-11-30"
    assert by_name["EKS 1.36"]["status"] == "current"
    attention = {fact["name"] for fact in document["attention"]}
    assert {"AKS 1.34", "EKS 1.34"} <= attention and "EKS 1.36" not in attention


def test_catalog_text_is_short_lines_with_each_source_once():
    run = run_cli("catalog")
    assert run.code == 0 and "plan date: 2026-11-25" in run.out
    lines = run.out.splitlines()
    assert max(map(len, lines)) <= 120
    assert "gpu-operator: v26.7.0" in lines[2]
    assert lines[3].split() == "current; newer: v26.7.1 (release date not found); read 2026-08-22 [1, 2]".split()
    assert "newer: 0.5.0 (released 2026-08-19)" in run.out  # a date where there is one, never "not found" in its place
    assert "GA not GA" not in run.out and "AKS 1.37: GA planned 2026-10, standard to 2027-10-31" in run.out
    notes = lines[lines.index("sources:") + 1 :]
    assert notes[0].startswith("  [1] https://helm.ngc.nvidia.com/nvidia")
    assert notes.count("  [2] NVIDIA/aicr docs/user/container-images.md @ 4288a18cbe85 (read 2026-11-26)") == 1
    assert sum(line.startswith("  [2] ") for line in notes) == 1  # each source one numbered note


def test_catalog_marks_a_calendar_ga_as_expected_and_needing_attention():
    document = json.loads(run_cli("catalog", "--json").out)
    (aks_137,) = [fact for fact in document["facts"] if fact["name"] == "AKS 1.37"]
    assert aks_137["status"] == "expected" and "GA planned 2026-10" in aks_137["value"]
    assert "AKS 1.37" in {fact["name"] for fact in document["attention"]}
