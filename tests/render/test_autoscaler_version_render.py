"""The cluster autoscaler's image follows the cluster's Kubernetes minor (issue 16 item 13).

Upstream: one cluster-autoscaler minor per Kubernetes minor, "We don't do cross version testing"
(cluster-autoscaler README, "Releases"). The plan's Release values go through the real chart 9.59.0 and the
rendered container must run the image of the cluster's minor; a minor without a release in the table is refused
by ``check`` and by the component alike.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from gpupools.catalog.chart_refs import CLUSTER_AUTOSCALER
from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from gpupools.testing import run_program

from support.base_configs import VALID_AWS
from support.helm_render import CHARTS, HelmRenderer, of_kind, renderer  # noqa: F401
from support.stack_files import plan_config

CHART = CHARTS / f"{CLUSTER_AUTOSCALER.name}-{CLUSTER_AUTOSCALER.default_version}"
REPOSITORY = "registry.k8s.io/autoscaling/cluster-autoscaler"  # chart 9.59.0 values.yaml image.repository


def _stack(kubernetes_version: str) -> dict:
    raw = copy.deepcopy(VALID_AWS)
    raw["gpupools:cluster"].update(kubernetesVersion=kubernetes_version, autoscaler={"install": True})
    raw["gpupools:gpuPools"][0].update(autoscaling={"minCount": 1, "maxCount": 3})
    return raw


@pytest.mark.parametrize("minor", ["1.31", "1.33", "1.35", "1.36"])
def test_rendered_autoscaler_runs_the_clusters_minor(
    tmp_path: Path,
    renderer: HelmRenderer,  # noqa: F811
    minor: str,
) -> None:
    if not CHART.is_dir():
        pytest.skip(f"reference chart not found at {CHART}")
    plan = plan_config(tmp_path, _stack(minor), "ca")
    (release,) = [
        r["inputs"]
        for r in plan.resources
        if r["type"] == "kubernetes:helm.sh/v3:Release" and r["inputs"]["chart"] == "cluster-autoscaler"
    ]
    objects = renderer.render(CHART, "cluster-autoscaler", release["namespace"], release["values"])
    (deployment,) = of_kind(objects, "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert re.fullmatch(rf"{re.escape(REPOSITORY)}:v{re.escape(minor)}\.\d+", container["image"]), container["image"]


@pytest.mark.parametrize("minor", ["1.37", "1.28"])  # every minor EKS offers has a row since issue 26
def test_a_minor_without_an_autoscaler_release_is_refused_by_check(minor: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_stack(_stack(minor))
    problems = [p for p in caught.value.problems if p.field == "gpupools:cluster.kubernetesVersion"]
    assert any("cross version testing" in p.message and "allowed" in p.message for p in problems)


def test_without_the_autoscaler_any_minor_stays_allowed() -> None:
    raw = copy.deepcopy(VALID_AWS)
    raw["gpupools:cluster"]["kubernetesVersion"] = "1.36"
    assert load_stack(raw).config.cluster.kubernetes_version == "1.36"


def test_the_component_refuses_the_same_minor() -> None:
    from gpupools.component_args import ComponentArgsError
    from gpupools.kubernetes.cluster_autoscaler import ClusterAutoscaler

    issuer = "oidc.eks.us-east-1.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"

    def program():
        ClusterAutoscaler(
            "ca",
            {
                "cluster_name": "gpu-eks",
                "region": "us-east-1",
                "oidc_provider_arn": f"arn:aws:iam::123456789012:oidc-provider/{issuer}",
                "oidc_provider_url": f"https://{issuer}",
                "kubernetes_version": "1.37",
            },
        )

    with pytest.raises(ComponentArgsError) as caught:
        run_program(program, project="autoscaling", stack="bad", config={})
    assert "args.kubernetes_version" in str(caught.value) and "cross version testing" in str(caught.value)
