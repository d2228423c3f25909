"""Stacks use the placement rule: a custom mix NVIDIA's starts cannot hold is refused, and 4g + 3g on an A100
passes with the R510 driver warning."""

from __future__ import annotations

import pytest

from gpupools.catalog import mig_placements
from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack


def _eks(layout) -> dict:
    return {
        "gpupools:cloud": "aws",
        "gpupools:cluster": {"name": "gpu-eks", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
        "gpupools:gpuPools": [{"name": "p4d", "size": "p4d.24xlarge", "count": 1, "mig": {"layout": layout}}],
        "gpupools:gpuSoftware": {"installer": "gpu-operator", "version": "v26.7.0", "migStrategy": "mixed"},
    }


def test_four_g_and_three_g_warn_about_the_driver():
    stack = load_stack(_eks({"4g.20gb": 1, "3g.20gb": 1}))
    assert any("R510" in warning and "pool p4d" in warning for warning in stack.warnings)


def test_balanced_has_no_placement_warning():
    assert not any("R510" in w or "placements" in w for w in load_stack(_eks("all-balanced")).warnings)


def test_named_layouts_go_through_the_placement_rule(monkeypatch):
    """If the table allowed 3g.20gb only at slice 0, NVIDIA's all-3g.20gb could not be placed: the rule says so."""
    table = mig_placements.PLACEMENTS["A100-40GB"]
    narrowed = mig_placements.Placements("A100-40GB", "high", "test", {**table.starts, "3g.20gb": (0,)})
    monkeypatch.setitem(mig_placements.PLACEMENTS, "A100-40GB", narrowed)
    monkeypatch.setattr("gpupools.domain.mig_layouts._CHECKED", {})
    with pytest.raises(ConfigError) as raised:
        load_stack(_eks("all-3g.20gb"))
    (problem,) = raised.value.problems
    assert problem.field == "gpupools:gpuPools[0].mig.layout" and "cannot be placed" in problem.message
