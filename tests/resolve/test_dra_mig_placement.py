"""The placement check models the MIG manager beside the DRA kubelet plugin (issue 24, item 1): on a pool whose
layout the MIG manager cuts, the plugin lands only once ``nvidia.com/mig.config.state=success``, and values that
would let it start earlier (the chart's default affinity) are refused.
"""

from __future__ import annotations

from copy import deepcopy

from gpupools.catalog.chart_defaults import DRA_DRIVER_DEFAULTS
from gpupools.charts.values import chart_values
from gpupools.resolve.daemonsets import place_daemonsets
from gpupools.resolve.scheduling import placements
from gpupools.resolve.stack_loader import load_stack
from support.dra_stacks import MPS, P4D_BALANCED

PLUGIN = "dra-driver-nvidia-gpu-kubelet-plugin"


def test_the_plugin_lands_on_the_cut_pool_only_after_the_mig_state_is_success() -> None:
    stack = load_stack(P4D_BALANCED)
    rows = [row for row in placements(stack, chart_values(stack)) if row.daemonset.startswith(PLUGIN)]
    (row,) = rows
    assert row.pool == "balanced" and row.schedules and row.ok
    assert "once nvidia.com/mig.config.state=success" in row.reason
    assert not place_daemonsets(stack).findings.problems


def test_the_chart_default_affinity_would_start_the_plugin_before_the_layout_is_cut() -> None:
    stack = load_stack(P4D_BALANCED)
    values = deepcopy(chart_values(stack))
    values["kubeletPlugin"]["affinity"] = deepcopy(DRA_DRIVER_DEFAULTS.values["kubeletPlugin"]["affinity"])
    bad = [row for row in placements(stack, values) if not row.ok]
    assert [row.daemonset for row in bad] == [PLUGIN + " before the MIG layout is cut"]
    assert "runs on its nodes but must not" in bad[0].problem


def test_pools_without_a_mig_manager_layout_have_no_wait() -> None:
    stack = load_stack(MPS)
    (row,) = [row for row in placements(stack, chart_values(stack)) if row.daemonset.startswith(PLUGIN)]
    assert row.schedules and row.ok and "mig.config.state" not in row.reason
