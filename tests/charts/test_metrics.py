"""GPU metrics with either installer: ``gpupools:gpuSoftware.metrics`` config, the values of both paths,
the placement check and maxPods sizing with the dcgm-exporter chart beside the device plugin. The
``NvidiaDcgmExporter`` component under the recording mocks is in ``tests/components/test_dcgm_exporter_component.py``
and the stack program's exporter in ``tests/plan/test_metrics_program.py`` (``pytest -m pure`` runs no program).

Expected values are NVIDIA's and Kubernetes' published names: the GPU taint toleration, our pool label
``nvidia.com/gpu.present=true``, AKS's Spot taint, the charts' value keys and the Helm repository URL.
"""

from __future__ import annotations

import pytest

from support.base_configs import AWS, AZURE, config
from gpupools.charts.dcgm_exporter import dcgm_exporter_values
from gpupools.catalog.chart_defaults import DCGM_EXPORTER_DEFAULTS
from gpupools.charts.values import addon_chart_values, chart_values
from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from gpupools.domain.stack import PLAIN_POD
from gpupools.resolve.scheduling import placement_problems, placements

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
# AKS taints every node of a Spot pool with this itself (AKS "Add an Azure Spot node pool").
SPOT_TOLERATION = {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Exists", "effect": "NoSchedule"}
GPU_POOL_SELECTOR = {"nvidia.com/gpu.present": "true"}
# Three nodes: AKS needs 30 pods per pool, so a one-node pool's computed maxPods would sit at that floor.
SPOT_T4 = {"name": "tfour", "size": "Standard_NC64as_T4_v3", "priority": "Spot", "count": 3}
EXPORTER = "dcgm-exporter"  # the DaemonSet of release dcgm-exporter (fullname = release name)
OPERATOR_EXPORTER = "nvidia-dcgm-exporter"  # the GPU Operator's operand


def _azure(metrics: dict | None = None, spot: bool = True) -> dict:
    raw = config(AZURE, gpuSoftware={"metrics": metrics} if metrics is not None else {})
    if spot:
        raw["gpupools:gpuPools"].append(dict(SPOT_T4))
    return raw


def _aws_operator(metrics: dict | None = None) -> dict:
    return config(AWS, gpuSoftware={"metrics": metrics} if metrics is not None else {})


def _problems(raw: dict) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as error:
        load_stack(raw)
    return [(problem.field, problem.message) for problem in error.value.problems]


# --- Config: defaults follow the installer, unknown keys and contradictions are refused ------------------------


def test_exporter_defaults_to_the_installers_own_default():
    """The GPU Operator's chart runs its exporter (values.yaml ``dcgmExporter.enabled: true``); the device plugin
    chart has none, so nothing extra is installed unless asked. No ServiceMonitor unless asked, on either path."""
    plugin = load_stack(_azure()).config.gpu_software
    assert plugin.metrics.dcgm_exporter is None and plugin.metrics.service_monitor is False
    assert (plugin.runs_dcgm_exporter, plugin.installs_dcgm_exporter) == (False, False)
    operator = load_stack(_aws_operator()).config.gpu_software
    assert operator.metrics.dcgm_exporter is None and operator.metrics.service_monitor is False
    assert (operator.runs_dcgm_exporter, operator.installs_dcgm_exporter) == (True, False)


@pytest.mark.parametrize(
    "raw, runs, installs",
    [
        (_azure({"dcgmExporter": True}), True, True),
        (_azure({"dcgmExporter": False}), False, False),
        (_aws_operator({"dcgmExporter": False}), False, False),
        (_aws_operator({"dcgmExporter": True}), True, False),  # the operator's own exporter: no second chart
    ],
    ids=["plugin-on", "plugin-off", "operator-off", "operator-on"],
)
def test_exporter_as_asked(raw, runs, installs):
    software = load_stack(raw).config.gpu_software
    assert (software.runs_dcgm_exporter, software.installs_dcgm_exporter) == (runs, installs)


def test_unknown_metrics_key_is_refused_with_the_allowed_keys():
    ((field, message),) = _problems(_azure({"foo": 1}))
    assert field == "gpupools:gpuSoftware.metrics.foo"
    assert "foo" in message and "dcgmExporter" in message and "serviceMonitor" in message


@pytest.mark.parametrize("key", ["dcgm_exporter", "servicemonitor"])
def test_metrics_keys_are_camel_case_only(key):
    ((field, _),) = _problems(_azure({key: True}))
    assert field == f"gpupools:gpuSoftware.metrics.{key}"


@pytest.mark.parametrize("metrics", [{"dcgmExporter": "true"}, {"serviceMonitor": 1}, {"serviceMonitor": None}])
def test_metrics_switches_are_booleans(metrics):
    (key,) = metrics
    ((field, _),) = _problems(_azure(metrics))
    assert field == f"gpupools:gpuSoftware.metrics.{key}"


@pytest.mark.parametrize(
    "raw",
    [_azure({"serviceMonitor": True}), _aws_operator({"dcgmExporter": False, "serviceMonitor": True})],
    ids=["plugin-default", "operator-off"],
)
def test_service_monitor_without_an_exporter_is_refused(raw):
    ((field, message),) = _problems(raw)
    assert field == "gpupools:gpuSoftware" and "serviceMonitor" in message and "dcgmExporter: true" in message


def test_service_monitor_with_an_exporter_is_accepted():
    plugin = load_stack(_azure({"dcgmExporter": True, "serviceMonitor": True}))
    assert plugin.config.gpu_software.metrics.service_monitor
    assert load_stack(_aws_operator({"serviceMonitor": True})).config.gpu_software.metrics.service_monitor


# --- Values: the dcgm-exporter chart beside the device plugin --------------------------------------------------


def test_exporter_values_tolerate_gpu_and_cloud_taints_and_select_gpu_pools():
    stack = load_stack(_azure({"dcgmExporter": True}))
    ((defaults, values),) = addon_chart_values(stack)
    assert defaults is DCGM_EXPORTER_DEFAULTS and values == dcgm_exporter_values(stack)
    assert GPU_TOLERATION in values["tolerations"] and SPOT_TOLERATION in values["tolerations"]
    assert values["nodeSelector"] == GPU_POOL_SELECTOR
    # The chart creates a ServiceMonitor by default, which fails the release without the Prometheus Operator CRDs.
    assert values["serviceMonitor"] == {"enabled": False}


def test_exporter_values_without_spot_pools_tolerate_only_the_gpu_taint():
    values = dcgm_exporter_values(load_stack(_azure({"dcgmExporter": True}, spot=False)))
    assert values["tolerations"] == [GPU_TOLERATION]


def test_service_monitor_maps_to_the_charts_switch():
    values = dcgm_exporter_values(load_stack(_azure({"dcgmExporter": True, "serviceMonitor": True})))
    assert values["serviceMonitor"] == {"enabled": True}


@pytest.mark.parametrize(
    "raw",
    [_azure(), _azure({"dcgmExporter": False}), _aws_operator({"dcgmExporter": True})],
    ids=["plugin-default", "plugin-off", "operator"],
)
def test_no_exporter_chart_unless_asked_beside_the_device_plugin(raw):
    assert addon_chart_values(load_stack(raw)) == []


def test_device_plugin_values_do_not_change_with_metrics():
    assert chart_values(load_stack(_azure({"dcgmExporter": True}))) == chart_values(load_stack(_azure()))


# --- Values: the GPU Operator's own exporter --------------------------------------------------------------------


@pytest.mark.parametrize(
    "metrics, exporter",
    [
        (None, {"enabled": True, "serviceMonitor": {"enabled": False}}),
        ({"dcgmExporter": False}, {"enabled": False, "serviceMonitor": {"enabled": False}}),
        ({"serviceMonitor": True}, {"enabled": True, "serviceMonitor": {"enabled": True}}),
    ],
    ids=["default", "off", "service-monitor"],
)
def test_operator_values_carry_the_exporter_switches(metrics, exporter):
    assert chart_values(load_stack(_aws_operator(metrics)))["dcgmExporter"] == exporter


# --- Placement check and maxPods sizing -------------------------------------------------------------------------


def _where(rows, daemonset):
    return {row.pool for row in rows if row.daemonset == daemonset and row.schedules}


def test_exporter_lands_on_every_gpu_pool_and_a_plain_pod_on_none():
    stack = load_stack(_azure({"dcgmExporter": True}))
    rows = placements(stack, chart_values(stack))
    assert _where(rows, EXPORTER) == {"mig1g", "tfour"}
    assert all(row.ok for row in rows), [row.problem for row in rows if not row.ok]
    assert _where(rows, PLAIN_POD) == set()


def test_no_exporter_rows_unless_installed():
    stack = load_stack(_azure())
    assert _where(placements(stack, chart_values(stack)), EXPORTER) == set()


@pytest.mark.parametrize(
    "broken, why",
    [
        ({"tolerations": []}, "does not tolerate taint nvidia.com/gpu=present:NoSchedule"),
        (
            {"tolerations": [GPU_TOLERATION]},
            "does not tolerate taint kubernetes.azure.com/scalesetpriority=spot:NoSchedule",
        ),
        ({"nodeSelector": {"nvidia.com/gpu.present": "false"}}, "nodeSelector nvidia.com/gpu.present=false"),
    ],
    ids=["no-gpu-toleration", "no-spot-toleration", "wrong-selector"],
)
def test_placement_check_refuses_an_exporter_that_misses_a_pool(broken, why):
    stack = load_stack(_azure({"dcgmExporter": True}))
    values = {**dcgm_exporter_values(stack), **broken}
    problems = placement_problems(stack, chart_values(stack), [(DCGM_EXPORTER_DEFAULTS, values)])
    assert problems and all(f"{EXPORTER} does not run on its nodes" in p for p in problems), problems
    assert any(why in p for p in problems), problems


def test_chart_defaults_alone_keep_the_exporter_off_gpu_nodes():
    """dcgm-exporter 4.8.2 tolerates only the control plane: installed as is, it never reaches a tainted GPU node."""
    stack = load_stack(_azure({"dcgmExporter": True}))
    rows = placements(stack, chart_values(stack), [(DCGM_EXPORTER_DEFAULTS, {})])
    assert _where(rows, EXPORTER) == set() and any(row.daemonset == EXPORTER and not row.ok for row in rows)


def test_operator_path_counts_its_own_exporter_not_a_second_one():
    on, off = load_stack(_aws_operator()), load_stack(_aws_operator({"dcgmExporter": False}))
    on_rows, off_rows = placements(on, chart_values(on)), placements(off, chart_values(off))
    assert _where(on_rows, OPERATOR_EXPORTER) == {"p4d"} and _where(on_rows, EXPORTER) == set()
    assert _where(off_rows, OPERATOR_EXPORTER) == set()
    # One exporter pod per GPU node, counted against the node's pods.
    assert [p.daemonset_pods for p in on.pools] == [p.daemonset_pods + 1 for p in off.pools]


def test_aks_max_pods_counts_the_exporter_pod_on_each_gpu_node():
    on, off = load_stack(_azure({"dcgmExporter": True})), load_stack(_azure())
    assert [p.daemonset_pods for p in on.pools] == [p.daemonset_pods + 1 for p in off.pools]
    # The computed maxPods already counts the exporter, on or off: toggling it never replaces the pool (issue 27).
    assert [p.max_pods for p in on.pools] == [p.max_pods for p in off.pools]
    assert all(p.max_pods - p.daemonset_pods > 0 for p in on.pools)


def test_aks_max_pods_too_small_for_the_exporter_is_refused():
    """A maxPods that leaves exactly one GPU pod without the exporter leaves none with it."""
    off = load_stack(_azure(spot=False))
    tight = off.pools[0].daemonset_pods + 1
    load_stack(config(AZURE, {"maxPods": tight, "count": 3}))  # fits without the exporter (3 nodes: 30 pods in all)
    problems = _problems(config(AZURE, {"maxPods": tight, "count": 3}, gpuSoftware={"metrics": {"dcgmExporter": True}}))
    assert [field for field, _ in problems] == ["gpupools:gpuPools[0].maxPods"]
