"""``gpupools verify`` on a node cut per GPU: one p4d.24xlarge (8x A100-40GB) with 6 GPUs all-balanced
({1g.5gb: 2, 2g.10gb: 1, 3g.20gb: 1}) and 2 left whole, mixed strategy. Counted by hand: 12x 1g.5gb, 6x 2g.10gb,
6x 3g.20gb and 2 whole GPUs as ``nvidia.com/gpu`` per node (the device plugin README's mixed strategy)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpupools.config import read_stack_file
from gpupools.resolve.stack_loader import load_stack
from gpupools.verify import run_verify
from gpupools.verify.resource_slices import expected_dra_devices
from support.fake_kube_api import FakeKubeApi, daemonset, daemonset_pod, eks_node
from verify.test_verify import EKS_NODE, OP_NS, OP_POD_LABELS, mismatch_lines, parse

REPO_ROOT = Path(__file__).resolve().parents[2]
PER_GPU = (
    "        layout:\n"
    "          - {gpus: 6, mix: {1g.5gb: 2, 2g.10gb: 1, 3g.20gb: 1}}\n"
    "          - {gpus: 2, whole: true}\n"
)
EXPECTED = {"nvidia.com/mig-1g.5gb": 12, "nvidia.com/mig-2g.10gb": 6, "nvidia.com/mig-3g.20gb": 6, "nvidia.com/gpu": 2}


@pytest.fixture
def api():
    server = FakeKubeApi().start()
    yield server
    server.stop()


def _stack_file(tmp_path: Path):
    text = (REPO_ROOT / "Pulumi.eks.yaml").read_text(encoding="utf-8")
    assert "        layout: all-balanced\n" in text
    path = tmp_path / "Pulumi.pergpu.yaml"
    path.write_text(text.replace("        layout: all-balanced\n", PER_GPU), encoding="utf-8")
    return read_stack_file(path, "pergpu")


def _cluster(api: FakeKubeApi, allocatable: dict[str, int]) -> None:
    slices = {name: str(count) for name, count in allocatable.items()}
    api.nodes = [eks_node(EKS_NODE, "p4d-balanced", slices, "success", layout="gpupools-p4d-balanced")]
    api.daemonsets[OP_NS] = [daemonset(OP_NS, "nvidia-device-plugin-daemonset", OP_POD_LABELS, OP_POD_LABELS)]
    api.pods[OP_NS] = [daemonset_pod(OP_NS, "nvidia-device-plugin-daemonset", EKS_NODE, OP_POD_LABELS)]


def _verify(api: FakeKubeApi, tmp_path: Path, *argv: str) -> int:
    kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
    return run_verify(_stack_file(tmp_path), parse("--kubeconfig", str(kubeconfig), *argv))


def test_a_node_cut_per_gpu_is_expected_with_its_whole_gpus(api, tmp_path, capsys):
    _cluster(api, EXPECTED)
    assert _verify(api, tmp_path, "--json") == 0
    [pool] = json.loads(capsys.readouterr().out)["pools"]
    assert pool["expected"] == EXPECTED and pool["ok"] is True


def test_a_node_whose_whole_gpus_were_cut_too_is_a_mismatch(api, tmp_path, capsys):
    # The MIG manager cut all 8 GPUs all-balanced: 16/8/8 slices and no whole GPU.
    _cluster(api, {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8})
    assert _verify(api, tmp_path) == 3  # a mismatch (errors.ExitStatus.MISMATCH)
    lines = mismatch_lines(capsys.readouterr().out)
    assert f"pool p4d-balanced, node {EKS_NODE}: nvidia.com/gpu expected 2, got 0" in lines
    assert f"pool p4d-balanced, node {EKS_NODE}: nvidia.com/mig-1g.5gb expected 12, got 16" in lines


def test_dra_slices_must_list_each_profile_and_the_whole_gpus(tmp_path):
    text = (REPO_ROOT / "Pulumi.eks.yaml").read_text(encoding="utf-8")
    text = text.replace("        layout: all-balanced\n", PER_GPU)
    text = text.replace(
        "    installer: gpu-operator\n    version: v26.7.0\n", "    installer: dra-driver\n    version: 0.4.1\n"
    )
    path = tmp_path / "Pulumi.dra.yaml"
    path.write_text(text, encoding="utf-8")
    stack = load_stack(read_stack_file(path, "dra").config)
    assert expected_dra_devices(stack) == {
        "p4d-balanced": {"mig 1g.5gb": 12, "mig 2g.10gb": 6, "mig 3g.20gb": 6, "gpu": 2}
    }
