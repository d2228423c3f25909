"""``gpupools plan`` validates a stack's config once: the stack program it runs gets the plan's ``Stack``.

The program still validates on its own under ``pulumi up``, and so does a plan's program whose config is not the
stack file's (covered by tests/resolve/test_validated_once.py); here, the rules run once per plan of each shipped
stack file, and the plan comes out the same as when the program validated again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpupools.config import read_stack_file
from gpupools.plan.offline import plan_stack
from gpupools.resolve import stack_loader

ROOT = Path(__file__).resolve().parents[2]
STACK_FILES = sorted(ROOT.glob("Pulumi.*.yaml"))


@pytest.fixture
def rule_runs(monkeypatch):
    """How many times the config went through the rules (once per real validation)."""
    runs: list[str] = []
    apply_rules = stack_loader._apply_rules

    def counted(config, day):
        runs.append(config.cloud)
        return apply_rules(config, day)

    monkeypatch.setattr(stack_loader, "_apply_rules", counted)
    return runs


@pytest.mark.parametrize("path", STACK_FILES, ids=lambda path: path.stem)
def test_a_plan_validates_its_config_once(path, rule_runs):
    plan_stack(read_stack_file(path))
    assert len(rule_runs) == 1


def test_the_plan_is_the_same_as_with_a_second_validation(monkeypatch, rule_runs):
    stack_file = read_stack_file(ROOT / "Pulumi.dev.yaml")
    once = plan_stack(stack_file).to_json()
    monkeypatch.setattr(stack_loader, "handed_down", lambda key: None)  # the program validates again
    twice = plan_stack(stack_file).to_json()
    assert len(rule_runs) == 3
    assert twice == once
