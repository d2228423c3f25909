"""The plan-time placement check's chart defaults (``charts/defaults.py``) against the real charts, and
self-checks that the schema validations used on rendered charts do refuse bad objects.

Renders the reference charts with empty values and with every switch of the table flipped; needs ``helm``
and ``../shared/reference/charts``, and skips without either.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.helm_render import (
    CHARTS,
    HelmRenderer,
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

from gpupools.catalog.chart_defaults import GPU_OPERATOR_DEFAULTS
from gpupools.catalog.installers import installer as defaults_for  # noqa: E402

__all__ = ["renderer"]
CLUSTER_POLICY_CRD = "crds/nvidia.com_clusterpolicies.yaml"


def test_the_crd_check_refuses_unknown_and_mistyped_fields(renderer: HelmRenderer) -> None:
    """The schema check is not vacuous: a misspelt key and a wrong type in a real ClusterPolicy are reported."""
    pytest.importorskip("jsonschema")
    chart = chart_folder("gpu-operator", GPU_OPERATOR_DEFAULTS.chart.default_version)
    policy = of_kind(renderer.render(chart, "gpu-operator", "gpu-operator", {}), "ClusterPolicy")[0]
    policy["spec"]["devicePlugin"]["confg"] = {"name": "typo"}
    policy["spec"]["mig"]["strategy"] = "both"
    problems = crd_problems(policy, chart / CLUSTER_POLICY_CRD)
    assert any("spec.devicePlugin" in p and "confg" in p for p in problems), problems
    assert any("spec.mig.strategy" in p for p in problems), problems


def test_the_kubernetes_check_refuses_a_misspelt_field(renderer: HelmRenderer) -> None:
    """The strict 1.33 schemas are not vacuous: a rendered DaemonSet with a misspelt key is reported."""
    pytest.importorskip("kubernetes_validate")
    chart = chart_folder("nvidia-device-plugin", defaults_for("device-plugin").chart.default_version)
    daemonset = named(
        renderer.render(chart, "nvidia-device-plugin", "nvidia-device-plugin", {}), "DaemonSet", "nvidia-device-plugin"
    )
    daemonset["spec"]["template"]["spec"]["tolerations"][0]["operater"] = "Exists"
    assert any("operater" in p for p in builtin_problems([daemonset]))


# --- 6. The hand-kept defaults table agrees with what the charts render --------------------------------------

# Table name -> rendered DaemonSet name for release R (the Pulumi Release is named after its chart).
RENDERED_NAMES = {
    "device-plugin": {
        "nvidia-device-plugin": "{r}",
        "gpu-feature-discovery": "{r}-gpu-feature-discovery",
        "mps-control-daemon": "{r}-mps-control-daemon",
        "nfd-worker": "{r}-node-feature-discovery-worker",
    },
    "gpu-operator": {"node-feature-discovery-worker": "{r}-node-feature-discovery-worker"},
}
SWITCHES = {  # value sets that flip every enabled_by path of the table, on top of the chart defaults
    "device-plugin": [
        {},
        {"gfd": {"enabled": True}},
        {"gfd": {"enabled": True}, "nfd": {"enabled": False}},
        {"devicePlugin": {"enabled": False}, "gfd": {"enabled": True}},
    ],
    "gpu-operator": [
        {},
        {
            "nfd": {"enabled": False},
            "driver": {"enabled": False},
            "toolkit": {"enabled": False},
            "devicePlugin": {"enabled": False},
            "gfd": {"enabled": False},
            "migManager": {"enabled": False},
            "dcgmExporter": {"enabled": False},
        },
    ],
}


def _lookup(values: Any, path: str) -> Any:
    for part in path.split("."):
        values = values[part]
    return values


@pytest.mark.parametrize("installer", ["device-plugin", "gpu-operator"])
def test_defaults_table_matches_what_the_chart_renders(installer: str, renderer: HelmRenderer) -> None:
    """``charts/defaults.py`` (what the plan-time placement check merges our values over) against the real chart:
    which daemonsets each switch deploys, and the tolerations, nodeSelector and affinity their pods get."""
    from gpupools.resolve import scheduling

    table = defaults_for(installer)
    release = table.chart.name
    chart = chart_folder(release, table.chart.default_version)
    names = RENDERED_NAMES[installer]
    for values in SWITCHES[installer]:
        objects = renderer.render(chart, release, release, values)
        merged = scheduling._merge(table.values, values)
        helm_made = [ds for ds in table.daemonsets if ds.name in names]
        expected = {names[ds.name].format(r=release) for ds in helm_made if scheduling._deployed(ds, merged)}
        assert {ds["metadata"]["name"] for ds in of_kind(objects, "DaemonSet")} == expected, values
        for ds in helm_made:
            if names[ds.name].format(r=release) not in expected:
                continue
            pod = scheduling._pod_of(ds, merged)
            rendered_pod = pod_placement(named(objects, "DaemonSet", names[ds.name].format(r=release)))
            assert rendered_pod == (list(pod.tolerations), dict(pod.node_selector or {}), pod.affinity), (
                ds.name,
                values,
            )
        if installer == "gpu-operator":  # operands: the operator reads their switches and tolerations from the policy
            spec = of_kind(objects, "ClusterPolicy")[0]["spec"]
            for ds in table.daemonsets:
                if ds.name in names:
                    continue
                assert _lookup(spec, ds.tolerations_at) == list(scheduling._pod_of(ds, merged).tolerations), ds.name
                if ds.enabled_by:
                    assert _lookup(spec, ds.enabled_by[0]) is scheduling._deployed(ds, merged), (ds.name, values)
