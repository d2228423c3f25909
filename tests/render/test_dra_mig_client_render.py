"""The real DRA driver chart (0.4.1) rendered with helm and the plan's values for the EKS p4d.24xlarge all-balanced
stack: the kubelet plugin DaemonSet's pod template carries what the MIG manager (mig-parted v0.15.0) waits for,
``nvidia.com/gpu.deploy.client`` in its nodeSelector, and its affinity admits a node of the pool only once the MIG
state is ``success``. Skips without helm or ``../shared``.
"""

from __future__ import annotations

import pytest

from gpupools.catalog.chart_defaults import DRA_DRIVER_DEFAULTS
from gpupools.charts.values import chart_values
from gpupools.resolve.scheduling import matches_affinity, tolerates
from gpupools.resolve.stack_loader import load_stack
from support.dra_stacks import P4D_BALANCED
from support.helm_render import HelmRenderer, chart_folder, find_helm, named, pod_placement

CHART = chart_folder(DRA_DRIVER_DEFAULTS.chart.name, DRA_DRIVER_DEFAULTS.chart.default_version)


@pytest.fixture(scope="module")
def plugin() -> dict:
    if not CHART.is_dir():
        pytest.skip(f"reference chart not available: {CHART}")
    helm = find_helm()
    if helm is None:
        pytest.skip("helm not found on PATH or in .ci/node/bin (run .ci/install-helm)")
    objects = HelmRenderer(helm).render(
        CHART, "dra-driver-nvidia-gpu", "dra-driver-nvidia-gpu", chart_values(load_stack(P4D_BALANCED))
    )
    return named(objects, "DaemonSet", "dra-driver-nvidia-gpu-kubelet-plugin")


def test_the_pod_template_selects_the_gpu_client_label(plugin: dict) -> None:
    assert plugin["spec"]["template"]["spec"]["nodeSelector"] == {"nvidia.com/gpu.deploy.client": "true"}


def test_the_plugin_leaves_while_paused_and_lands_once_the_layout_is_cut(plugin: dict) -> None:
    tolerations, node_selector, affinity = pod_placement(plugin)
    (pool,) = load_stack(P4D_BALANCED).pools
    assert tolerates(tolerations, pool.node_taints)
    node = {**pool.labels, "nvidia.com/gpu.present": "true"}

    def lands(labels: dict[str, str]) -> bool:
        return all(labels.get(k) == v for k, v in node_selector.items()) and matches_affinity(affinity, labels)

    assert not lands({**node, "nvidia.com/gpu.deploy.client": "true"})  # fresh node, MIG manager not done
    assert not lands({**node, "nvidia.com/gpu.deploy.client": "true", "nvidia.com/mig.config.state": "pending"})
    assert not lands(
        {**node, "nvidia.com/gpu.deploy.client": "paused-for-mig-change", "nvidia.com/mig.config.state": "success"}
    )
    assert lands({**node, "nvidia.com/gpu.deploy.client": "true", "nvidia.com/mig.config.state": "success"})
