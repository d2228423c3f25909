"""The cluster autoscaler's DRA switch (issue 24, item 3): ``--enable-dynamic-resource-allocation`` defaults to
false in cluster-autoscaler 1.34.x and is locked true from 1.35.0 (flags.go at cluster-autoscaler-1.34.3 and
-1.35.0, docs/sources.md); a DRA stack below 1.35 turns it on through the chart's ``extraArgs``.
"""

from __future__ import annotations

import pytest

from gpupools.charts.cluster_autoscaler import cluster_autoscaler_values
from gpupools.domain.node_templates import autoscaling_summary, cluster_autoscaler_args
from gpupools.resolve.stack_loader import load_stack
from support.dra_stacks import AUTOSCALED_134

FLAG = "enable-dynamic-resource-allocation"


@pytest.mark.parametrize("version", ["1.33", "1.34"])
def test_a_dra_stack_below_135_turns_the_autoscaler_dra_handling_on(version: str) -> None:
    values = cluster_autoscaler_values(
        "c", "us-east-1", "arn", kubernetes_version=version, dynamic_resource_allocation=True
    )
    assert values["extraArgs"][FLAG] is True


def test_from_135_and_without_dra_the_flag_is_left_alone() -> None:
    on = cluster_autoscaler_values("c", "us-east-1", "arn", kubernetes_version="1.35", dynamic_resource_allocation=True)
    chart_default = cluster_autoscaler_values("c", "us-east-1", "arn", dynamic_resource_allocation=True)
    off = cluster_autoscaler_values("c", "us-east-1", "arn", kubernetes_version="1.34")
    assert all(FLAG not in values["extraArgs"] for values in (on, chart_default, off))


def test_the_134_dra_stack_asks_for_it_and_says_the_autoscaler_copies_slices() -> None:
    stack = load_stack(AUTOSCALED_134)
    assert cluster_autoscaler_args(stack)["dynamic_resource_allocation"] is True
    (row,) = autoscaling_summary(stack)
    assert "copies" in str(row)


def test_a_managed_autoscaler_below_135_is_not_said_to_copy_slices() -> None:
    stack = load_stack(
        {
            "cloud": "azure",
            "cluster": {
                "name": "c",
                "resourceGroup": "rg",
                "location": "southcentralus",
                "kubernetesVersion": "1.34",
                "systemPool": {"size": "Standard_D4s_v5"},
            },
            "gpuPools": [
                {"name": "a100", "size": "Standard_NC24ads_A100_v4", "autoscaling": {"minCount": 1, "maxCount": 3}}
            ],
            "gpuSoftware": {"installer": "dra-driver"},
        }
    )
    (row,) = autoscaling_summary(stack)
    assert "copies its slices only with --enable-dynamic-resource-allocation" in str(row)
