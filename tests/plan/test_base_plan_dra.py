"""The base plan's ``draDevices`` section is checked by the same schema as the rest of ``--base`` (issue 25): a bad
value is one ``error: --base`` line and exit 2, never an internal error; no negative count, no HTML or Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
BASE = {"stack": "base", "capacity": [{"pool": "dra", "nodes": 2, "gpusPerNode": 8}], "resources": [], "outputs": {}}
DEVICE = {"kind": "mig", "profile": "1g.10gb", "perNode": 56, "memoryGB": 10}


@pytest.mark.parametrize(
    ("devices", "says"),
    [
        ({"dra": [{**DEVICE, "perNode": -3}]}, "draDevices.dra[0].perNode: Input should be greater than or equal to 0"),
        ({"dra": [{**DEVICE, "perNode": "many"}]}, "draDevices.dra[0].perNode: Input should be a valid integer"),
        ({"dra": [{**DEVICE, "kind": "<img src=x onerror=alert(1)>"}]}, "draDevices.dra[0].kind: String should match"),
        ({"dra": [{**DEVICE, "profile": "[a](javascript:x)"}]}, "draDevices.dra[0].profile: String should match"),
        ({"<b>pool</b>": [DEVICE]}, "String should match pattern"),
        ({"dra": {"kind": "mig"}}, "draDevices.dra: Input should be a valid list"),
        ({"dra": [{"profile": "1g.10gb"}]}, "draDevices.dra[0].kind: Field required"),
        ([1], "draDevices: Input should be a valid dictionary"),
    ],
)
def test_a_bad_dra_section_is_one_line_per_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, devices: object, says: str
) -> None:
    base = tmp_path / "base.json"
    base.write_text(json.dumps({**BASE, "draDevices": devices}))
    monkeypatch.chdir(REPO)
    run = run_cli("plan", "--stack", "dev", "--base", str(base), "--format", "markdown")
    assert (run.code, run.out) == (2, ""), run.err
    assert any(says in line for line in run.lines), run.err
    assert all(line.startswith(f"error: --base {base}: ") for line in run.lines)


def test_a_good_dra_section_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "base.json"
    base.write_text(json.dumps({**BASE, "draDevices": {"dra": [DEVICE, {**DEVICE, "profile": "1g.10gb+me"}]}}))
    monkeypatch.chdir(REPO)
    run = run_cli("plan", "--stack", "dev", "--base", str(base), "--json")
    assert run.code == 0, run.err
