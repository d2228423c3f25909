"""Odd but valid stack-file input that ``plan`` must plan: a date in another namespace's config reaches the program
as text (go-yaml hands timestamp-looking scalars to a program as text), with nothing unprintable printed.

Moved from ``tests/config/test_hostile_input.py``, whose refusals never run the program: this one does, under
Pulumi's mocks, so ``pytest -m pure`` stays free of program runs.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from support.base_configs import VALID_AWS
from support.cli import run_cli

EXAMPLE_SECONDS = 30.0  # a hang guard, as in tests/config/test_hostile_input.py, not a speed target


def test_a_date_in_another_namespace_plans(tmp_path: Path) -> None:
    # The tester's case: myapp:expires: 2025-01-01 crashed plan when the config was JSON-serialised.
    path = tmp_path / "Pulumi.dated.yaml"
    valid = yaml.safe_dump({"config": VALID_AWS}, sort_keys=False)
    path.write_text(valid + "  myapp:expires: 2025-01-01\n  myapp:when: {at: 2025-01-01}\n", encoding="utf-8")
    outcome = run_cli("plan", "--json", "--config", str(path))
    text = outcome.out + outcome.err
    assert "Traceback" not in text
    assert all(char.isprintable() for line in text.split("\n") for char in line), ascii(text[:400])
    assert outcome.seconds < EXAMPLE_SECONDS, outcome.seconds
    assert outcome.code == 0, outcome.err
