"""``gpupools verify`` on DRA stacks: each node's devices in NVIDIA's ResourceSlices (resource.k8s.io/v1, served by a
real HTTP server through the official client) against the devices the plan says the driver publishes.

Slices are built as the driver's attribute reference documents them (support.dra_slices). Expected figures are
published ones: Standard_ND96asr_v4 and p4d.24xlarge carry 8x A100 40GB; an A100 40GB holds 7x 1g.5gb; all-balanced
is 2x 1g.5gb + 1x 2g.10gb + 1x 3g.20gb per GPU. The kubelet plugin's pod labels are the chart's templateLabels
(dra-driver-nvidia-gpu 0.4.1 templates/_helpers.tpl) for release ``dra-driver-nvidia-gpu``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupools.config import read_stack_file
from gpupools.verify import add_verify_arguments, run_verify
from gpupools.verify.resource_slices import node_devices
from support.dra_slices import node_slice
from support.dra_stacks import AKS_MIG1G_134, EKS_BALANCED_134
from support.fake_kube_api import FakeKubeApi, aks_node, daemonset, daemonset_pod, eks_node

AKS_NODE = "aks-mig1g-31415926-vmss000000"
EKS_NODE = "ip-10-0-71-203.ec2.internal"
PRODUCT = "NVIDIA A100-SXM4-40GB"
NS = "dra-driver-nvidia-gpu"
PLUGIN = "dra-driver-nvidia-gpu-kubelet-plugin"
POD_LABELS = {"app.kubernetes.io/name": "dra-driver-nvidia-gpu", "app.kubernetes.io/instance": "dra-driver-nvidia-gpu"}
BALANCED = {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}
MEMORY = {"1g.5gb": 5, "2g.10gb": 10, "3g.20gb": 20}

STACKS = {"aks": AKS_MIG1G_134, "eks": EKS_BALANCED_134}


@pytest.fixture
def api():
    server = FakeKubeApi().start()
    server.version = {"major": "1", "minor": "34", "gitVersion": "v1.34.2", "platform": "linux/amd64"}
    yield server
    server.stop()


def verify(api: FakeKubeApi, tmp_path: Path, name: str, *argv: str, **kwargs: Any) -> int:
    path = tmp_path / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump({"config": {f"gpupools:{k}": v for k, v in STACKS[name].items()}}))
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", default="text")
    add_verify_arguments(parser)
    args = parser.parse_args(["--kubeconfig", str(api.write_kubeconfig(tmp_path / "kubeconfig")), *argv])
    return run_verify(read_stack_file(path, name), args, **kwargs)


def plugin_on(api: FakeKubeApi, node: str) -> None:
    api.daemonsets[NS] = [daemonset(NS, PLUGIN, POD_LABELS, {"dra-driver-nvidia-gpu-component": "kubelet-plugin"})]
    api.pods[NS] = [daemonset_pod(NS, PLUGIN, node, POD_LABELS)]


def aks(api: FakeKubeApi, mig: dict[str, int] | None = {"1g.5gb": 7}, gpus: str | None = None) -> None:
    api.nodes = [aks_node(AKS_NODE, "mig1g", gpus)]
    plugin_on(api, AKS_NODE)
    api.resource_slices = [node_slice(AKS_NODE, 8, PRODUCT, 40, mig, MEMORY)]


def mismatches(out: str) -> list[str]:
    return [line.removeprefix("mismatch: ") for line in out.splitlines() if line.startswith("mismatch: ")]


def test_aks_mig1g_node_publishing_56_devices_matches(api, tmp_path, capsys) -> None:
    aks(api)
    assert verify(api, tmp_path, "aks") == 0, capsys.readouterr().out
    assert "/apis/resource.k8s.io/v1/resourceslices" in api.requests


def test_eks_all_balanced_node_publishing_16_8_8_matches(api, tmp_path, capsys) -> None:
    api.nodes = [eks_node(EKS_NODE, "balanced", {})]
    plugin_on(api, EKS_NODE)
    api.resource_slices = [node_slice(EKS_NODE, 8, PRODUCT, 40, BALANCED, MEMORY)]
    assert verify(api, tmp_path, "eks") == 0, capsys.readouterr().out


def test_whole_gpus_where_mig_devices_were_planned_is_a_mismatch(api, tmp_path, capsys) -> None:
    aks(api, mig=None)
    assert verify(api, tmp_path, "aks") == 3
    assert mismatches(capsys.readouterr().out) == [
        f"pool mig1g, node {AKS_NODE}: DRA devices mig 1g.5gb expected 56, got 0",
        f"pool mig1g, node {AKS_NODE}: DRA devices gpu expected 0, got 8",
    ]


def test_a_device_plugin_advertising_beside_the_dra_driver_is_a_mismatch(api, tmp_path, capsys) -> None:
    aks(api, gpus="56")
    assert verify(api, tmp_path, "aks") == 3
    assert mismatches(capsys.readouterr().out) == [f"pool mig1g, node {AKS_NODE}: nvidia.com/gpu expected 0, got 56"]


def test_a_node_without_slices_is_waited_for_until_the_kubelet_plugin_publishes(api, tmp_path, capsys) -> None:
    aks(api)
    published = api.resource_slices
    api.resource_slices = []

    def kubelet_plugin(served: int) -> None:
        if served == 1:  # the second look finds the node's pool published
            api.resource_slices = published

    api.before_node_list = kubelet_plugin
    assert verify(api, tmp_path, "aks", "--timeout", "10", poll_interval=0.05) == 0
    assert api.node_lists() == 2
    assert "ResourceSlices (gpu.nvidia.com) expected 56x mig 1g.5gb, got none" in capsys.readouterr().err


def test_only_the_newest_generation_of_a_node_pool_counts() -> None:
    old = node_slice("n", 8, PRODUCT, 40, None)
    new = node_slice("n", 8, PRODUCT, 40, {"1g.5gb": 7})
    new["spec"]["pool"]["generation"] = 2
    other_driver = {**new, "spec": {**new["spec"], "driver": "compute-domain.nvidia.com"}}
    found = node_devices([old, new, other_driver])
    assert found["n"].devices == {"mig 1g.5gb": 56} and found["n"].complete


def test_a_pool_missing_some_of_its_slices_is_incomplete() -> None:
    part = node_slice("n", 4, PRODUCT, 40, None)
    part["spec"]["pool"]["resourceSliceCount"] = 2
    found = node_devices([part])
    assert found["n"].devices == {"gpu": 4} and not found["n"].complete
