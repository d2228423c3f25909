"""The real dcgm-exporter chart (4.8.2) rendered with the values gpupools passes beside the device plugin, and
the GPU Operator chart rendered with our ``dcgmExporter`` values.

The rendered objects must be valid Kubernetes 1.33 (strict schemas), the exporter DaemonSet must reach every
GPU pool and no CPU node while a pod without tolerations reaches no GPU pool, no ServiceMonitor may be
rendered unless asked, and the hand-kept ``DCGM_EXPORTER_DEFAULTS`` must say what the chart renders. Needs
``helm`` and ``../shared/reference/charts``; without either the module skips.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from support.helm_render import (
    CHARTS,
    HelmRenderer,
    Object,
    builtin_problems,
    chart_folder,
    crd_problems,
    named,
    of_kind,
    pod_placement,
    renderer,
)

if not CHARTS.is_dir():
    pytest.skip(f"reference charts not found at {CHARTS}", allow_module_level=True)

from support.base_configs import AWS, AZURE, config  # noqa: E402
from gpupools.charts.dcgm_exporter import dcgm_exporter_values  # noqa: E402
from gpupools.catalog.chart_defaults import DCGM_EXPORTER_DEFAULTS  # noqa: E402
from gpupools.charts.gpu_operator import gpu_operator_values  # noqa: E402
from gpupools.catalog.chart_refs import (
    DCGM_EXPORTER,
    DCGM_EXPORTER_IMAGE,
    DCGM_EXPORTER_IMAGE_TAG,
    GPU_OPERATOR,
)  # noqa: E402
from gpupools.domain.stack import Stack  # noqa: E402
from gpupools.resolve.stack_loader import load_stack  # noqa: E402
from gpupools.catalog.cloud_registry import cloud  # noqa: E402
from gpupools.resolve.scheduling import matches_affinity, tolerates  # noqa: E402

__all__ = ["renderer"]

RELEASE = DCGM_EXPORTER.name  # the component names the release after its chart, so the DaemonSet is "dcgm-exporter"
NAMESPACE = "nvidia-device-plugin"  # shared with the device plugin
CHART = chart_folder(DCGM_EXPORTER.name, DCGM_EXPORTER.default_version)
SERVICE_MONITOR_API = "monitoring.coreos.com/v1"  # the Prometheus Operator's CRD group/version
CLUSTER_POLICY_CRD = "crds/nvidia.com_clusterpolicies.yaml"
# A CPU node of the AKS system pool or an EKS managed node group: no GPU label, no GPU taint.
CPU_NODE_LABELS = {"kubernetes.azure.com/agentpool": "system", "kubernetes.io/os": "linux"}


def _stack(metrics: dict[str, Any], spot: bool = True) -> Stack:
    raw = config(AZURE, gpuSoftware={"metrics": metrics})
    if spot:
        raw["gpupools:gpuPools"].append({"name": "tfour", "size": "Standard_NC64as_T4_v3", "priority": "Spot"})
    return load_stack(raw)


def _render(renderer: HelmRenderer, values: dict[str, Any]) -> list[Object]:
    return renderer.render(CHART, RELEASE, NAMESPACE, values)


def _selected(node_selector: dict[str, str], labels: dict[str, str]) -> bool:
    """Kubernetes nodeSelector: every key present on the node with the same value."""
    return all(labels.get(key) == value for key, value in node_selector.items())


def test_reference_chart_is_the_pinned_version_and_image():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert chart["name"] == DCGM_EXPORTER.name and chart["version"] == DCGM_EXPORTER.default_version
    assert values["image"] == {**values["image"], "repository": DCGM_EXPORTER_IMAGE, "tag": DCGM_EXPORTER_IMAGE_TAG}


def test_rendered_exporter_is_valid_kubernetes_and_runs_the_pinned_image(renderer: HelmRenderer):
    pytest.importorskip("kubernetes_validate")
    objects = _render(renderer, dcgm_exporter_values(_stack({"dcgmExporter": True})))
    assert builtin_problems(objects) == []
    daemonset = named(objects, "DaemonSet", RELEASE)
    (container,) = daemonset["spec"]["template"]["spec"]["containers"]
    assert container["image"] == f"{DCGM_EXPORTER_IMAGE}:{DCGM_EXPORTER_IMAGE_TAG}"
    assert all(obj["metadata"].get("namespace", NAMESPACE) == NAMESPACE for obj in objects)


def test_rendered_exporter_lands_on_every_gpu_pool_and_no_cpu_node(renderer: HelmRenderer):
    stack = _stack({"dcgmExporter": True})
    assert any(pool.cloud_taints for pool in stack.pools)  # the Spot pool: a cloud taint to tolerate
    tolerations, node_selector, affinity = pod_placement(
        named(_render(renderer, dcgm_exporter_values(stack)), "DaemonSet", RELEASE)
    )
    for pool in stack.pools:
        labels = {**cloud(stack.cloud).gpu_labels, **pool.labels}
        assert tolerates(tolerations, pool.node_taints), pool.name
        assert _selected(node_selector, labels) and matches_affinity(affinity, labels), pool.name
        assert not tolerates([], pool.node_taints), pool.name  # a pod without tolerations stays off
    assert not (_selected(node_selector, CPU_NODE_LABELS) and matches_affinity(affinity, CPU_NODE_LABELS))


def test_no_service_monitor_unless_asked(renderer: HelmRenderer):
    """The chart renders a ServiceMonitor by default; without the Prometheus Operator CRDs Helm then refuses the
    release, so gpupools asks for one only with ``metrics.serviceMonitor: true``."""
    assert of_kind(_render(renderer, {}), "ServiceMonitor")  # the chart's default
    assert of_kind(_render(renderer, dcgm_exporter_values(_stack({"dcgmExporter": True}))), "ServiceMonitor") == []
    objects = _render(renderer, dcgm_exporter_values(_stack({"dcgmExporter": True, "serviceMonitor": True})))
    (monitor,) = of_kind(objects, "ServiceMonitor")
    assert monitor["apiVersion"] == SERVICE_MONITOR_API
    service = named(objects, "Service", RELEASE)
    assert [port["name"] for port in service["spec"]["ports"]] == [monitor["spec"]["endpoints"][0]["port"]]


def test_defaults_table_matches_what_the_chart_renders(renderer: HelmRenderer):
    """``DCGM_EXPORTER_DEFAULTS`` (what the placement check merges our values over) against the real chart with
    its own defaults and with ours: one DaemonSet, its tolerations, nodeSelector and affinity."""
    from gpupools.resolve import scheduling

    (table_ds,) = DCGM_EXPORTER_DEFAULTS.daemonsets
    assert DCGM_EXPORTER_DEFAULTS.chart == DCGM_EXPORTER
    for values in ({}, dcgm_exporter_values(_stack({"dcgmExporter": True}))):
        objects = _render(renderer, values)
        assert [ds["metadata"]["name"] for ds in of_kind(objects, "DaemonSet")] == [table_ds.name]
        pod = scheduling._pod_of(table_ds, scheduling._merge(DCGM_EXPORTER_DEFAULTS.values, values))
        # The template leaves out an empty affinity or nodeSelector; both mean "no constraint".
        assert pod_placement(named(objects, "DaemonSet", table_ds.name)) == (
            list(pod.tolerations),
            dict(pod.node_selector or {}),
            pod.affinity or None,
        )


@pytest.mark.parametrize(
    "metrics, enabled, monitor",
    [
        ({}, True, False),
        ({"dcgmExporter": False}, False, False),
        ({"serviceMonitor": True}, True, True),
    ],
    ids=["default", "off", "service-monitor"],
)
def test_operator_cluster_policy_carries_the_exporter_switches(renderer: HelmRenderer, metrics, enabled, monitor):
    pytest.importorskip("jsonschema")
    stack = load_stack(config(AWS, gpuSoftware={"metrics": metrics}))
    chart = chart_folder(GPU_OPERATOR.name, GPU_OPERATOR.default_version)
    objects = renderer.render(chart, GPU_OPERATOR.name, GPU_OPERATOR.name, gpu_operator_values(stack))
    (policy,) = of_kind(objects, "ClusterPolicy")
    assert crd_problems(policy, chart / CLUSTER_POLICY_CRD) == []
    assert policy["spec"]["dcgmExporter"]["enabled"] is enabled
    assert policy["spec"]["dcgmExporter"]["serviceMonitor"]["enabled"] is monitor
