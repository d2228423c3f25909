"""The weekly catalog watch: scheduled, pinned like the other workflows, refreshes prices, reads
``gpupools catalog --json`` and keeps one marked issue (actionlint and schema: test_workflows.py)."""

from __future__ import annotations

from pathlib import Path

import yaml

WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "catalog-watch.yml"


def test_it_runs_on_a_schedule_and_by_hand():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key "on" as true
    assert triggers["schedule"][0]["cron"] and "workflow_dispatch" in triggers
    assert workflow["permissions"] == {"contents": "read"}


def test_it_refreshes_prices_lists_the_facts_and_keeps_one_issue():
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["watch"]
    assert job["permissions"] == {"contents": "read", "issues": "write"}
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert "gpupools prices refresh" in runs and "gpupools catalog --json > catalog.json" in runs
    (script,) = [step["with"]["script"] for step in job["steps"] if "github-script" in step.get("uses", "")]
    assert "<!-- gpupools-catalog-watch -->" in script and "catalog.attention" in script
    assert "issues.update" in script and "issues.create" in script
