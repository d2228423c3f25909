"""``gpupools verify`` against a real HTTP server speaking the Kubernetes API.

Plans are the repository's stack files. Expected figures are documented facts: one Standard_ND96asr_v4
(8x A100 40GB) with MIG1g advertises 56 ``nvidia.com/gpu``; one p4d.24xlarge laid out all-balanced under
the mixed strategy advertises 16x 1g.5gb, 8x 2g.10gb and 8x 3g.20gb. Labels and names of the device
plugin pods are those of the device plugin chart 0.20.0 and the GPU Operator's operand daemonset.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.fake_kube_api import (
    FakeKubeApi,
    aks_node,
    daemonset,
    daemonset_pod,
    eks_node,
    kubeconfig_for,
    selector_matches,
)
from gpupools.config import ConfigError, read_stack_file
from gpupools.verify import add_verify_arguments, run_verify

REPO_ROOT = Path(__file__).resolve().parents[2]
REFERENCE = REPO_ROOT.parent / "shared" / "reference"

AKS_NODE = "aks-mig1g-31415926-vmss000000"
EKS_NODE = "ip-10-0-71-203.ec2.internal"
BALANCED = {"nvidia.com/mig-1g.5gb": "16", "nvidia.com/mig-2g.10gb": "8", "nvidia.com/mig-3g.20gb": "8"}

# Device plugin chart 0.20.0, release "nvidia-device-plugin" in namespace "nvidia-device-plugin": every daemonset
# of the chart (plugin, GFD, MPS) carries these pod labels (templates/_helpers.tpl, templateLabels).
DP_NS = "nvidia-device-plugin"
DP_POD_LABELS = {"app.kubernetes.io/name": "nvidia-device-plugin", "app.kubernetes.io/instance": "nvidia-device-plugin"}
# GPU Operator v26.7.0 operand: assets/state-device-plugin/0500_daemonset.yaml, in the operator's namespace.
OP_NS = "gpu-operator"
OP_POD_LABELS = {"app": "nvidia-device-plugin-daemonset"}


@pytest.fixture
def api():
    server = FakeKubeApi().start()
    yield server
    server.stop()


def stack(name: str):
    return read_stack_file(REPO_ROOT / f"Pulumi.{name}.yaml", name)


def parse(*argv: str) -> argparse.Namespace:
    """The flags as the CLI will parse them: its shared --json/--format plus ours."""
    parser = argparse.ArgumentParser(prog="gpupools verify")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", dest="format", action="store_const", const="json")
    output.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    add_verify_arguments(parser)
    return parser.parse_args(list(argv))


def verify(api: FakeKubeApi, tmp_path: Path, stack_name: str, *argv: str, **kwargs) -> int:
    kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
    return run_verify(stack(stack_name), parse("--kubeconfig", str(kubeconfig), *argv), **kwargs)


def dev_cluster(api: FakeKubeApi, gpus: str | None = "56", plugin_ready: bool = True) -> None:
    """One AKS MIG1g node; the chart's plugin and GFD daemonsets, whose pods share labels, on it."""
    api.nodes = [
        aks_node("aks-system-27182818-vmss000000", "system", None, "Standard_D4s_v5"),
        aks_node(AKS_NODE, "mig1g", gpus),
    ]
    chart_labels = {
        **DP_POD_LABELS,
        "app.kubernetes.io/managed-by": "Helm",
        "helm.sh/chart": "nvidia-device-plugin-0.20.0",
    }
    gfd = "nvidia-device-plugin-gpu-feature-discovery"
    api.daemonsets[DP_NS] = [
        daemonset(DP_NS, "nvidia-device-plugin", chart_labels, DP_POD_LABELS),
        daemonset(DP_NS, gfd, chart_labels, DP_POD_LABELS),
    ]
    api.pods[DP_NS] = [
        daemonset_pod(DP_NS, "nvidia-device-plugin", AKS_NODE, DP_POD_LABELS, ready=plugin_ready),
        daemonset_pod(DP_NS, gfd, AKS_NODE, DP_POD_LABELS, ready=True),
    ]


def eks_cluster(
    api: FakeKubeApi,
    slices: dict[str, str] = BALANCED,
    mig_state: str | None = "success",
    layout: str = "all-balanced",
) -> None:
    api.nodes = [eks_node(EKS_NODE, "p4d-balanced", slices, mig_state, layout)]
    api.daemonsets[OP_NS] = [daemonset(OP_NS, "nvidia-device-plugin-daemonset", OP_POD_LABELS, OP_POD_LABELS)]
    api.pods[OP_NS] = [daemonset_pod(OP_NS, "nvidia-device-plugin-daemonset", EKS_NODE, OP_POD_LABELS)]


def mismatch_lines(text: str) -> list[str]:
    return [line.removeprefix("mismatch: ") for line in text.splitlines() if line.startswith("mismatch: ")]


# A matching cluster


def test_dev_cluster_with_56_gpus_matches(api, tmp_path, capsys):
    dev_cluster(api)
    assert verify(api, tmp_path, "dev") == 0
    out = capsys.readouterr().out
    assert f"{AKS_NODE}: 56x nvidia.com/gpu, device plugin ready" in out
    assert out.rstrip().endswith("ok: every pool advertises what the plan promised")
    assert "/api/v1/nodes" in api.requests and f"/api/v1/namespaces/{DP_NS}/pods" in api.requests


def test_dev_cluster_json(api, tmp_path, capsys):
    dev_cluster(api)
    assert verify(api, tmp_path, "dev", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stack"] == "dev" and report["ok"] is True
    [pool] = report["pools"]
    assert pool["pool"] == "mig1g" and pool["expected"] == {"nvidia.com/gpu": 56} and pool["ok"] is True
    # Only the pool's node (not the system node), and only nvidia.com/* resources, as integers.
    assert pool["nodes"] == [
        {
            "name": AKS_NODE,
            "allocatable": {"nvidia.com/gpu": 56},
            "migConfig": None,
            "migConfigState": None,
            "devicePluginReady": True,
        }
    ]


def test_eks_cluster_all_balanced_matches(api, tmp_path, capsys):
    eks_cluster(api)
    assert verify(api, tmp_path, "eks", "--json") == 0
    [pool] = json.loads(capsys.readouterr().out)["pools"]
    expected = {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8}
    assert pool["expected"] == expected
    # The mixed strategy leaves nvidia.com/gpu at 0 on a MIG node: reported, not a mismatch.
    [node] = pool["nodes"]
    assert node["allocatable"] == {**expected, "nvidia.com/gpu": 0}
    assert node["migConfigState"] == "success" and node["devicePluginReady"] is True


def test_markdown_format(api, tmp_path, capsys):
    eks_cluster(api)
    assert verify(api, tmp_path, "eks", "--format", "markdown") == 0
    out = capsys.readouterr().out
    assert out.startswith("### Stack `eks` on Kubernetes v1.33.2: every pool matches the plan")
    assert f"| p4d-balanced | {EKS_NODE} |" in out


# Mismatches: exit 1, one line each


def test_node_with_zero_allocatable(api, tmp_path, capsys):
    dev_cluster(api, gpus="0")
    assert verify(api, tmp_path, "dev") == 1
    assert mismatch_lines(capsys.readouterr().out) == [
        f"pool mig1g, node {AKS_NODE}: nvidia.com/gpu expected 56, got 0"
    ]


def test_node_without_the_resource(api, tmp_path, capsys):
    dev_cluster(api, gpus=None)
    assert verify(api, tmp_path, "dev") == 1
    assert mismatch_lines(capsys.readouterr().out) == [
        f"pool mig1g, node {AKS_NODE}: nvidia.com/gpu expected 56, got missing"
    ]


def test_failed_mig_state_is_a_mismatch_and_not_waited_for(api, tmp_path, capsys):
    eks_cluster(api, slices={}, mig_state="failed")
    started = time.monotonic()
    assert verify(api, tmp_path, "eks", "--timeout", "30", poll_interval=0.05) == 1
    assert time.monotonic() - started < 5 and api.node_lists() == 1
    out = capsys.readouterr().out
    lines = mismatch_lines(out)
    # A failed re-cut is named, with why it usually fails and the way out (mig-parted v0.15.0 reconfigure.go and
    # cmd/nvidia-mig-manager/main.go: it retries only on a label change or when its pod starts).
    assert lines[0].startswith(
        f"pool p4d-balanced, node {EKS_NODE}: nvidia.com/mig.config.state expected success, got failed: the re-cut "
        "to all-balanced failed (usually a GPU pod still ran on the node), so pods selecting "
        "nvidia.com/mig.config.state=success no longer land on it; "
        f"drain it (kubectl drain {EKS_NODE} --ignore-daemonsets --delete-emptydir-data)"
    )
    assert ", MIG all-balanced: failed, " in out  # each node says its layout and state
    assert f"pool p4d-balanced, node {EKS_NODE}: nvidia.com/mig-1g.5gb expected 16, got missing" in lines


def test_each_nodes_layout_and_state_are_reported(api, tmp_path, capsys):
    eks_cluster(api)
    assert verify(api, tmp_path, "eks") == 0
    assert f"  {EKS_NODE}: " in (out := capsys.readouterr().out) and ", MIG all-balanced: success, " in out
    eks_cluster(api, mig_state=None)
    assert verify(api, tmp_path, "eks", "--json") == 1
    node = json.loads(capsys.readouterr().out)["pools"][0]["nodes"][0]
    assert node["migConfig"] == "all-balanced" and node["migConfigState"] is None


def test_a_node_still_labelled_with_the_old_layout_is_named(api, tmp_path, capsys):
    """The stack asks all-balanced; the node's label still asks all-1g.5gb, and the MIG manager cut it so."""
    eks_cluster(api, slices={"nvidia.com/mig-1g.5gb": "56"}, layout="all-1g.5gb")
    assert verify(api, tmp_path, "eks") == 1
    lines = mismatch_lines(capsys.readouterr().out)
    assert (
        lines[0] == f"pool p4d-balanced, node {EKS_NODE}: nvidia.com/mig.config expected all-balanced, got all-1g.5gb"
    )


def test_fewer_slices_than_planned(api, tmp_path, capsys):
    eks_cluster(api, slices={**BALANCED, "nvidia.com/mig-1g.5gb": "14"})
    assert verify(api, tmp_path, "eks", "--json") == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert report["pools"][0]["mismatches"] == [
        f"pool p4d-balanced, node {EKS_NODE}: nvidia.com/mig-1g.5gb expected 16, got 14"
    ]


def test_whole_gpus_where_mig_slices_were_planned(api, tmp_path, capsys):
    # MIG never applied: the plugin advertises 8 whole GPUs and no slices.
    eks_cluster(api, slices={"nvidia.com/gpu": "8"})
    assert verify(api, tmp_path, "eks") == 1
    assert f"pool p4d-balanced, node {EKS_NODE}: nvidia.com/gpu expected 0, got 8" in mismatch_lines(
        capsys.readouterr().out
    )


def test_pool_without_nodes(api, tmp_path, capsys):
    dev_cluster(api)
    api.nodes = [node for node in api.nodes if node["metadata"]["name"] != AKS_NODE]
    assert verify(api, tmp_path, "dev", "--json") == 1
    [pool] = json.loads(capsys.readouterr().out)["pools"]
    assert pool["nodes"] == [] and pool["ok"] is False
    assert pool["mismatches"] == ["pool mig1g: nodes expected 1 with gpupools.io/pool=mig1g, got no nodes"]


def test_lists_are_read_page_by_page(api, tmp_path, capsys, monkeypatch):
    # Two nodes in the pool, one per page: both must be seen, and the plugin pod on the second one too.
    monkeypatch.setattr("gpupools.verify.cluster.PAGE_SIZE", 1)
    dev_cluster(api)
    second = "aks-mig1g-31415926-vmss000001"
    api.nodes.append(aks_node(second, "mig1g", "56"))
    api.pods[DP_NS].append(daemonset_pod(DP_NS, "nvidia-device-plugin", second, DP_POD_LABELS, ready=False))
    assert verify(api, tmp_path, "dev") == 1
    assert mismatch_lines(capsys.readouterr().out) == [
        f"pool mig1g, node {second}: device plugin pod (nvidia-device-plugin/nvidia-device-plugin) expected ready, "
        "got not ready"
    ]
    assert api.node_lists() == 2


def test_pool_scaled_to_zero_needs_no_nodes(api, tmp_path, capsys):
    dev = stack("dev")
    pools = [{**dev.config["gpupools:gpuPools"][0], "count": 0}]
    scaled = type(dev)(dev.path, "dev", {**dev.config, "gpupools:gpuPools": pools})
    dev_cluster(api)
    api.nodes = [node for node in api.nodes if node["metadata"]["name"] != AKS_NODE]
    kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
    assert run_verify(scaled, parse("--kubeconfig", str(kubeconfig))) == 0
    assert "pool mig1g: 0 nodes (planned 0)" in capsys.readouterr().out


def test_device_plugin_pod_not_ready(api, tmp_path, capsys):
    # The GFD pod on the node is ready and has the same labels: only the plugin's own pod counts.
    dev_cluster(api, plugin_ready=False)
    assert verify(api, tmp_path, "dev") == 1
    assert mismatch_lines(capsys.readouterr().out) == [
        f"pool mig1g, node {AKS_NODE}: device plugin pod (nvidia-device-plugin/nvidia-device-plugin) expected ready, "
        "got not ready"
    ]


def test_device_plugin_daemonset_missing(api, tmp_path, capsys):
    eks_cluster(api)
    api.daemonsets[OP_NS] = []
    assert verify(api, tmp_path, "eks") == 1
    assert mismatch_lines(capsys.readouterr().out) == [
        f"pool p4d-balanced, node {EKS_NODE}: device plugin pod (gpu-operator/nvidia-device-plugin-daemonset) "
        "expected ready, got no daemonset"
    ]


# Waiting with --timeout


def test_pending_mig_state_turns_success_while_waiting(api, tmp_path, capsys):
    eks_cluster(api, slices={"nvidia.com/mig-1g.5gb": "0"}, mig_state="pending")

    def mig_manager(served: int) -> None:
        if served == 2:  # the third look finds the layout applied
            api.nodes = [eks_node(EKS_NODE, "p4d-balanced", BALANCED, "success")]

    api.before_node_list = mig_manager
    assert verify(api, tmp_path, "eks", "--timeout", "10", poll_interval=0.05) == 0
    assert api.node_lists() == 3
    captured = capsys.readouterr()
    assert "nvidia.com/mig.config.state expected success, got pending" in captured.err.splitlines()[0]
    assert captured.out.rstrip().endswith("ok: every pool advertises what the plan promised")


def test_pending_past_the_timeout_is_a_bounded_mismatch(api, tmp_path, capsys):
    eks_cluster(api, slices={}, mig_state="rebooting")
    started = time.monotonic()
    assert verify(api, tmp_path, "eks", "--timeout", "0.3", poll_interval=0.05) == 1
    assert 0.3 <= time.monotonic() - started < 3
    assert 2 <= api.node_lists() <= 0.3 / 0.05 + 2
    assert mismatch_lines(capsys.readouterr().out)[0].endswith(
        "nvidia.com/mig.config.state expected success, got rebooting"
    )


def test_no_timeout_reads_once(api, tmp_path, capsys):
    eks_cluster(api, mig_state="pending")
    assert verify(api, tmp_path, "eks", poll_interval=0.05) == 1
    assert api.node_lists() == 1


# Exit 2: the cluster cannot be read


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_cluster_exits_2_quickly(tmp_path, capsys):
    kubeconfig = tmp_path / "kubeconfig"
    port = closed_port()
    kubeconfig.write_text(kubeconfig_for(f"http://127.0.0.1:{port}"), encoding="utf-8")
    started = time.monotonic()
    # Without --timeout nothing is retried: one refused connection ends the run.
    assert run_verify(stack("dev"), parse("--kubeconfig", str(kubeconfig))) == 2
    assert time.monotonic() - started < 3
    err = capsys.readouterr().err
    assert (
        err.startswith(f"error: cannot reach the cluster at http://127.0.0.1:{port}: ") and "Connection refused" in err
    )
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_missing_kubeconfig_exits_2(tmp_path, capsys):
    assert run_verify(stack("dev"), parse("--kubeconfig", str(tmp_path / "nope"))) == 2
    err = capsys.readouterr().err
    assert err == f"error: kubeconfig {tmp_path / 'nope'} does not exist (pass --kubeconfig or set KUBECONFIG)\n"


def test_kubeconfig_without_a_context_exits_2(tmp_path, capsys):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\nclusters: []\n", encoding="utf-8")
    assert run_verify(stack("dev"), parse("--kubeconfig", str(kubeconfig))) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot read kubeconfig {kubeconfig}: ") and len(err.splitlines()) == 1


def test_forbidden_request_exits_2(api, tmp_path, capsys):
    dev_cluster(api)
    api.forbidden.add("/api/v1/nodes")
    assert verify(api, tmp_path, "dev") == 2
    assert capsys.readouterr().err == f"error: {api.url} answered 403 Forbidden to GET /api/v1/nodes\n"


def test_kubeconfig_from_the_environment(api, tmp_path, capsys):
    dev_cluster(api)
    kubeconfig = api.write_kubeconfig(tmp_path / "from-env")
    assert run_verify(stack("dev"), parse(), environ={"KUBECONFIG": str(kubeconfig)}) == 0
    assert api.requests[0].startswith("/version")


# Config and arguments


def test_bad_config_raises_config_error(tmp_path):
    bad = read_stack_file(REPO_ROOT / "Pulumi.dev.yaml", "dev")
    config = {**bad.config, "gpupools:gpuPools": [{"name": "mig1g", "size": "Standard_Nope"}]}
    with pytest.raises(ConfigError):
        run_verify(type(bad)(bad.path, "dev", config), parse("--kubeconfig", str(tmp_path / "unused")))


@pytest.mark.parametrize("value", ["-1", "soon", "90000"])
def test_timeout_must_be_seconds(value, capsys):
    with pytest.raises(SystemExit):
        parse("--timeout", value)
    assert "--timeout" in capsys.readouterr().err


def test_selector_semantics_of_the_fake_server():
    labels = {"gpupools.io/pool": "mig1g", "nvidia.com/gpu.present": "true"}
    assert selector_matches("gpupools.io/pool=mig1g,nvidia.com/gpu.present", labels)
    assert not selector_matches("gpupools.io/pool=other", labels)
    assert not selector_matches("gpupools.io/pool!=mig1g", labels)


# Where the device plugin's labels come from, and the lazy client import


def test_pod_labels_are_the_device_plugin_charts():
    helpers = REFERENCE / "charts" / "nvidia-device-plugin-0.20.0" / "templates" / "_helpers.tpl"
    if not helpers.is_file():
        pytest.skip("../shared/reference is not available")
    text = helpers.read_text(encoding="utf-8")
    template_labels = text.split('define "nvidia-device-plugin.templateLabels"', 1)[1].split("{{- end }}", 1)[0]
    assert 'app.kubernetes.io/name: {{ include "nvidia-device-plugin.name" . }}' in template_labels
    assert "app.kubernetes.io/instance: {{ .Release.Name }}" in template_labels


def test_check_and_plan_do_not_import_the_kubernetes_client():
    code = "import sys, gpupools.verify, gpupools.cli, gpupools.cli.check; sys.exit('kubernetes' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT).returncode == 0
