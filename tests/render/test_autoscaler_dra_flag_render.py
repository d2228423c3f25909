"""The cluster-autoscaler chart (9.59.0) rendered with helm and the values of a Kubernetes 1.34 DRA stack: the
container runs the 1.34 image with ``--enable-dynamic-resource-allocation=true`` (off by default in 1.34.x,
flags.go at cluster-autoscaler-1.34.3), and the chart's own flags stay. Skips without helm or ``../shared``.
"""

from __future__ import annotations

import pytest

from gpupools.catalog.chart_refs import CLUSTER_AUTOSCALER
from gpupools.charts.cluster_autoscaler import cluster_autoscaler_values
from gpupools.domain.node_templates import cluster_autoscaler_args
from gpupools.resolve.stack_loader import load_stack
from support.dra_stacks import AUTOSCALED_134
from support.helm_render import chart_folder, of_kind, renderer  # noqa: F401 (renderer: the fixture)

CHART = chart_folder(CLUSTER_AUTOSCALER.name, CLUSTER_AUTOSCALER.default_version)


def test_the_134_dra_stack_renders_the_dra_flag(renderer) -> None:  # noqa: F811
    if not CHART.is_dir():
        pytest.skip(f"reference chart not available: {CHART}")
    stack = load_stack(AUTOSCALED_134)
    args = cluster_autoscaler_args(stack)
    assert args is not None
    values = cluster_autoscaler_values(
        "gpu-dra",
        "us-east-1",
        "arn:aws:iam::123456789012:role/ca",
        kubernetes_version=stack.config.cluster.kubernetes_version,
        dynamic_resource_allocation=args["dynamic_resource_allocation"],
    )
    (deployment,) = of_kind(renderer.render(CHART, "cluster-autoscaler", "kube-system", values), "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    flags = container.get("command", []) + container.get("args", [])
    assert "--enable-dynamic-resource-allocation=true" in flags
    assert "--v=4" in flags  # the chart's extraArgs merged, not replaced
    assert container["image"].split(":")[-1].startswith("v1.34.")
