"""The Karpenter chart 1.14.1 rendered by real helm with the values the offline plan gives its release (issue 38):
the controller Deployment's pod lands on the system pool and on no GPU pool (Karpenter's own node labels included),
the settings reach its environment, and the rendered built-in objects pass the strict Kubernetes schema."""

from __future__ import annotations

import pytest

from gpupools.catalog.labels import POOL_LABEL
from gpupools.domain.karpenter_objects import karpenter_node_labels
from gpupools.resolve.scheduling import matches_affinity, tolerates
from gpupools.resolve.stack_loader import load_stack

from support.helm_render import CHARTS, HelmRenderer, builtin_problems, named, renderer  # noqa: F401
from support.karpenter_stacks import KARPENTER_AWS
from support.stack_files import plan_config

CHART = CHARTS / "karpenter-1.14.1"


@pytest.fixture(scope="module")
def rendered(renderer: HelmRenderer, tmp_path_factory):  # noqa: F811
    if not CHART.is_dir():
        pytest.skip("../shared/reference/charts/karpenter-1.14.1 is absent")
    plan = plan_config(tmp_path_factory.mktemp("k"), {"aws:region": "us-east-1", **KARPENTER_AWS}, "karpenter")
    (release,) = [
        r for r in plan.resources if r["type"] == "kubernetes:helm.sh/v3:Release" and r["inputs"]["name"] == "karpenter"
    ]
    return renderer.render(CHART, "karpenter", release["inputs"]["namespace"], release["inputs"]["values"])


def _pod(rendered) -> dict:
    return named(rendered, "Deployment", "karpenter")["spec"]["template"]["spec"]


def _lands(pod: dict, labels: dict[str, str], taints) -> bool:
    selector = pod.get("nodeSelector") or {}
    return (
        all(labels.get(k) == v for k, v in selector.items())
        and matches_affinity(pod.get("affinity"), labels)
        and tolerates(pod.get("tolerations") or [], taints)
    )


def test_the_controller_runs_on_the_system_pool_and_on_no_gpu_pool(rendered) -> None:
    pod = _pod(rendered)
    assert _lands(pod, {POOL_LABEL: "system", "kubernetes.io/os": "linux"}, [])
    for pool in load_stack(KARPENTER_AWS).pools:
        assert not _lands(pod, {**karpenter_node_labels(pool), "kubernetes.io/os": "linux"}, pool.node_taints)
        # Not even were the GPU taint gone: the chart's affinity keeps it off nodes Karpenter launched.
        assert not _lands(pod, {**karpenter_node_labels(pool), POOL_LABEL: "system", "kubernetes.io/os": "linux"}, [])


def test_the_settings_reach_the_controller(rendered) -> None:
    (container,) = [c for c in _pod(rendered)["containers"] if c["name"] == "controller"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["CLUSTER_NAME"] == "gpu-karpenter"
    assert env["INTERRUPTION_QUEUE"] == "gpu-karpenter"
    assert "NodeOverlay=true" in env["FEATURE_GATES"]


def test_the_rendered_objects_pass_the_kubernetes_schema(rendered) -> None:
    assert builtin_problems(rendered) == []
