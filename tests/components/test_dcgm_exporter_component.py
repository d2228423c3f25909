"""The ``NvidiaDcgmExporter`` component under the recording mocks: the pinned dcgm-exporter release with the values
``charts.dcgm_exporter`` computes, its namespace only when asked, and bad args refused before anything registers.

Expected values are the chart's published name and Helm repository URL (NVIDIA/dcgm-exporter README).
"""

from __future__ import annotations

import pulumi
import pytest

from gpupools.charts.dcgm_exporter import dcgm_exporter_values
from gpupools.resolve.stack_loader import load_stack
from support.base_configs import AZURE, config
from support.resources import one as _one, run_mocked as _run

DCGM_REPO = "https://nvidia.github.io/dcgm-exporter/helm-charts"  # NVIDIA/dcgm-exporter README, "helm repo add"
# Three nodes: AKS needs 30 pods per pool, so a one-node pool's computed maxPods would sit at that floor.
SPOT_T4 = {"name": "tfour", "size": "Standard_NC64as_T4_v3", "priority": "Spot", "count": 3}


def _azure(metrics: dict | None = None, spot: bool = True) -> dict:
    raw = config(AZURE, gpuSoftware={"metrics": metrics} if metrics is not None else {})
    if spot:
        raw["gpupools:gpuPools"].append(dict(SPOT_T4))
    return raw


def test_nvidia_dcgm_exporter_release_under_mocks():
    import pulumi_kubernetes as k8s

    from gpupools.kubernetes import NvidiaDcgmExporter

    stack = load_stack(_azure({"dcgmExporter": True}))
    values = dcgm_exporter_values(stack)

    def program():
        provider = k8s.Provider("k8s", kubeconfig="{}")
        NvidiaDcgmExporter(
            "dcgm-exporter",
            {"version": "4.8.2", "namespace": "nvidia-device-plugin", "values": values},
            pulumi.ResourceOptions(providers=[provider]),
        )

    run = _run(program)
    component = _one(run, "gpupools:index:NvidiaDcgmExporter")
    assert not component.custom and component.parent is None
    release = _one(run, "kubernetes:helm.sh/v3:Release")
    assert release.parent == component.urn
    assert {
        key: release.inputs.get(key) for key in ("name", "chart", "version", "repositoryOpts", "namespace", "atomic")
    } == {
        "name": "dcgm-exporter",
        "chart": "dcgm-exporter",
        "version": "4.8.2",
        "repositoryOpts": {"repo": DCGM_REPO},
        "namespace": "nvidia-device-plugin",
        "atomic": True,
    }
    assert release.inputs["values"] == values
    # It shares the device plugin's namespace: no Namespace of its own unless asked.
    assert [r for r in run.resources if r.type == "kubernetes:core/v1:Namespace"] == []
    assert release.options["provider"].startswith(next(r.urn for r in run.resources if r.name == "k8s") + "::")


def test_nvidia_dcgm_exporter_creates_its_namespace_when_asked():
    from gpupools.kubernetes import NvidiaDcgmExporter

    def program():
        NvidiaDcgmExporter(
            "metrics", {"version": "4.8.2", "namespace": "gpu-metrics", "values": {}, "create_namespace": True}
        )

    run = _run(program)
    namespace = _one(run, "kubernetes:core/v1:Namespace")
    release = _one(run, "kubernetes:helm.sh/v3:Release")
    assert namespace.inputs["metadata"]["name"] == "gpu-metrics" and release.inputs["namespace"] == "gpu-metrics"
    assert namespace.urn in release.options["dependencies"]


@pytest.mark.parametrize(
    "args, problem",
    [
        ({"version": "latest", "namespace": "nvidia-device-plugin", "values": {}}, "args.version"),
        ({"version": "v4.8.2", "namespace": "nvidia-device-plugin", "values": {}}, "args.version"),
        ({"version": "4.8.2", "namespace": "Bad_NS", "values": {}}, "args.namespace"),
        (
            {"version": "4.8.2", "namespace": "nvidia-device-plugin", "values": {}, "chart": "x"},
            "unknown argument 'chart'",
        ),
    ],
    ids=["latest", "v-prefix", "namespace", "unknown"],
)
def test_bad_args_are_refused_before_anything_registers(args, problem):
    from gpupools.component_args import ComponentArgsError
    from gpupools.kubernetes import NvidiaDcgmExporter

    with pytest.raises(ComponentArgsError) as error:
        NvidiaDcgmExporter("dcgm-exporter", args)
    assert problem in str(error.value) and "NvidiaDcgmExporter('dcgm-exporter')" in str(error.value)
