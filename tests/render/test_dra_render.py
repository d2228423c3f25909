"""The real DRA driver chart (dra-driver-nvidia-gpu 0.4.1) rendered with helm and the plan's exact values: every object
valid against the strict schemas of the cluster's Kubernetes version, the kubelet plugin daemonset placed as the
placement check says, the chart-defaults table equal to values.yaml, and the generated DeviceClasses and
ResourceClaimTemplates valid ``resource.k8s.io/v1`` objects. Skips without helm or ``../shared``.
"""

from __future__ import annotations

import copy
import json
import subprocess
import tempfile
from functools import lru_cache
from typing import Any

import pytest
import yaml

from gpupools.catalog.chart_defaults import DRA_DRIVER_DEFAULTS
from gpupools.charts.values import chart_values
from gpupools.domain.dra import dra_classes
from gpupools.domain.workloads import slice_workload
from gpupools.resolve.scheduling import matches_affinity, placements, tolerates
from gpupools.resolve.stack_loader import load_stack
from support.helm_render import chart_folder, find_helm, kubernetes_validate, named, of_kind, pod_placement

KUBERNETES = "1.34"
CHART = chart_folder(DRA_DRIVER_DEFAULTS.chart.name, DRA_DRIVER_DEFAULTS.chart.default_version)
KUBELET_PLUGIN = "dra-driver-nvidia-gpu-kubelet-plugin"

STACKS = {
    "aks-mig1g": {
        "cloud": "azure",
        "cluster": {
            "name": "c",
            "resourceGroup": "rg",
            "location": "southcentralus",
            "kubernetesVersion": KUBERNETES,
            "systemPool": {"size": "Standard_D4s_v5"},
        },
        "gpuPools": [
            {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}},
            {"name": "spot", "size": "Standard_NC24ads_A100_v4", "priority": "Spot"},
        ],
        "gpuSoftware": {"installer": "dra-driver"},
    },
    "eks-balanced": {
        "cloud": "aws",
        "cluster": {
            "name": "c",
            "region": "us-east-1",
            "kubernetesVersion": KUBERNETES,
            "systemPool": {"size": "m6i.large"},
        },
        "gpuPools": [
            {"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}},
            {"name": "mps", "size": "g5.xlarge", "sharing": {"mps": {"replicas": 4, "allowPrivilegedHostPID": True}}},
        ],
        "gpuSoftware": {"installer": "dra-driver", "draAlphaGates": ["MPSSupport"]},
    },
}


@pytest.fixture(scope="module")
def helm() -> str:
    if not CHART.is_dir():
        pytest.skip(f"reference chart not available: {CHART}")
    found = find_helm()
    if found is None:
        pytest.skip("helm not found on PATH or in .ci/node/bin (run .ci/install-helm)")
    return found


def render(helm: str, values: dict[str, Any]) -> list[dict[str, Any]]:
    """The chart rendered with ``values``: helm runs once per distinct values, each caller gets its own copy."""
    return copy.deepcopy(_render(helm, json.dumps(values, sort_keys=True)))


@lru_cache(maxsize=None)
def _render(helm: str, values_json: str) -> list[dict[str, Any]]:
    name = DRA_DRIVER_DEFAULTS.chart.name
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as values_file:
        values_file.write(values_json)  # JSON is YAML
        values_file.flush()
        result = subprocess.run(
            [
                helm,
                "template",
                name,
                str(CHART),
                "--namespace",
                name,
                "--values",
                values_file.name,
                "--kube-version",
                f"{KUBERNETES}.2",
                "--api-versions",
                "resource.k8s.io/v1",
                "--include-crds",
            ],
            capture_output=True,
            text=True,
        )
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def strict_problems(objects: list[dict[str, Any]]) -> list[str]:
    validation = kubernetes_validate()
    problems = []
    for obj in objects:
        if "nvidia.com" in obj["apiVersion"]:  # ComputeDomain custom resources: off in our values
            continue
        try:
            validation.validate(obj, KUBERNETES, strict=True)
        except validation.ValidationError as error:
            problems.append(f"{obj['kind']} {obj['metadata']['name']}: {error.message}")
    return problems


@pytest.mark.parametrize("stack_name", sorted(STACKS))
def test_the_chart_renders_with_the_plan_values_and_validates_strictly(stack_name: str, helm: str) -> None:
    stack = load_stack(STACKS[stack_name])
    objects = render(helm, chart_values(stack))
    assert not strict_problems(objects)
    kinds = {obj["kind"] for obj in objects}
    assert "DeviceClass" in kinds and "DaemonSet" in kinds
    assert not [o for o in of_kind(objects, "Deployment") if "controller" in o["metadata"]["name"]]  # no ComputeDomains
    plugin = named(objects, "DaemonSet", KUBELET_PLUGIN)
    env = {e["name"]: e.get("value") for c in plugin["spec"]["template"]["spec"]["initContainers"] for e in c["env"]}
    assert env["NVIDIA_DRIVER_ROOT"] == "/"


@pytest.mark.parametrize("stack_name", sorted(STACKS))
def test_the_rendered_kubelet_plugin_lands_where_the_placement_check_says(stack_name: str, helm: str) -> None:
    stack = load_stack(STACKS[stack_name])
    tolerations, node_selector, affinity = pod_placement(
        named(render(helm, chart_values(stack)), "DaemonSet", KUBELET_PLUGIN)
    )
    assert node_selector == chart_values(stack)["kubeletPlugin"].get("nodeSelector", {})
    rows = {row.pool: row for row in placements(stack, chart_values(stack)) if row.daemonset == KUBELET_PLUGIN}
    for pool in stack.pools:
        labels = {**pool.labels, **pool.readiness_labels}  # MIG-manager pools: once the layout is cut
        assert tolerates(tolerations, pool.node_taints) and matches_affinity(affinity, labels)
        assert rows[pool.name].schedules and rows[pool.name].ok


def test_feature_gates_reach_the_kubelet_plugin_only_as_named(helm: str) -> None:
    stack = load_stack(STACKS["eks-balanced"])
    plugin = named(render(helm, chart_values(stack)), "DaemonSet", KUBELET_PLUGIN)
    gates = {
        e.get("value")
        for c in plugin["spec"]["template"]["spec"]["containers"]
        for e in c.get("env") or []
        if e["name"] == "FEATURE_GATES"
    }
    assert gates == {"MPSSupport=true,"}


def test_the_defaults_table_is_the_chart_values_yaml() -> None:
    if not CHART.is_dir():
        pytest.skip(f"reference chart not available: {CHART}")
    chart = yaml.safe_load((CHART / "values.yaml").read_text())
    for key in ("nodeSelector", "tolerations", "affinity"):
        assert chart["kubeletPlugin"][key] == DRA_DRIVER_DEFAULTS.values["kubeletPlugin"][key]
    assert chart["resources"] == DRA_DRIVER_DEFAULTS.values["resources"]


@pytest.mark.parametrize("stack_name", sorted(STACKS))
def test_generated_dra_objects_validate_strictly(stack_name: str) -> None:
    stack = load_stack(STACKS[stack_name])
    objects = [obj for cls in dra_classes(stack) for obj in (cls.device_class(), cls.claim_template())]
    pool = stack.pools[0]
    objects.append(slice_workload(stack, pool.name, pool.mig.profiles[0] if pool.mig else None, 2).claim_template)
    assert len(objects) > 2 and not strict_problems(objects)


def test_the_strict_check_refuses_a_misspelt_device_class_field() -> None:
    bad = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "x"},
        "spec": {"selector": [{"cel": {"expression": "true"}}]},
    }
    assert strict_problems([bad])


def test_verify_finds_the_rendered_kubelet_plugin_by_its_name_and_labels(helm: str) -> None:
    """verify lists daemonsets and pods by the target's labels: the real chart must give them those labels."""
    from gpupools.verify.expected import device_plugin_target

    stack = load_stack(STACKS["aks-mig1g"])
    target = device_plugin_target(stack)
    plugin = named(render(helm, chart_values(stack)), "DaemonSet", target.daemonset)
    assert plugin["metadata"]["namespace"] == target.namespace == stack.config.gpu_software.resolved_namespace
    for labels in (plugin["metadata"]["labels"], plugin["spec"]["template"]["metadata"]["labels"]):
        assert target.pod_labels.items() <= labels.items()
