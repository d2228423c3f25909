"""``gpupools verify`` on a Karpenter stack (issue 38), against a real HTTP server speaking the Kubernetes API: it
reads NodePools and NodeClaims (karpenter.sh/v1) and reports a NodePool whose nodes lack what its NodeOverlay
promised Karpenter. Figures: a p4d.24xlarge cut all-1g.5gb advertises 7 x 8 = 56 nvidia.com/mig-1g.5gb."""

from __future__ import annotations

import argparse
import json

import pytest

from gpupools.config import read_stack_file
from gpupools.verify import add_verify_arguments, run_verify
from support.fake_kube_api import FakeKubeApi, daemonset, daemonset_pod, eks_node
from support.karpenter_stacks import KARPENTER_AWS
from support.stack_files import write_stack_file

NODE = "ip-10-0-12-34.ec2.internal"
OP_NS = "gpu-operator"
OP_POD_LABELS = {"app": "nvidia-device-plugin-daemonset"}
NODEPOOLS = "/apis/karpenter.sh/v1/nodepools"
NODECLAIMS = "/apis/karpenter.sh/v1/nodeclaims"
ONE_G = {"nvidia.com/mig-1g.5gb": str(7 * 8)}


@pytest.fixture
def api():
    server = FakeKubeApi().start()
    yield server
    server.stop()


def _list(kind: str, items: list[dict]) -> dict:
    return {"kind": kind, "apiVersion": "karpenter.sh/v1", "metadata": {}, "items": items}


def cluster(api: FakeKubeApi, slices: dict[str, str], mig_state: str = "success", nodepools=("p4d-1g", "l40s")) -> None:
    node = eks_node(NODE, "p4d-1g", {"nvidia.com/mig-1g.5gb": "0", **slices}, mig_state, layout="all-1g.5gb")
    node["metadata"]["labels"]["karpenter.sh/nodepool"] = "p4d-1g"
    api.nodes = [node]
    api.daemonsets[OP_NS] = [daemonset(OP_NS, "nvidia-device-plugin-daemonset", OP_POD_LABELS, OP_POD_LABELS)]
    api.pods[OP_NS] = [daemonset_pod(OP_NS, "nvidia-device-plugin-daemonset", NODE, OP_POD_LABELS)]
    api.documents[NODEPOOLS] = _list("NodePoolList", [{"metadata": {"name": name}} for name in nodepools])
    claim = {
        "metadata": {"name": "p4d-1g-x7k2p", "labels": {"karpenter.sh/nodepool": "p4d-1g"}},
        "status": {"nodeName": NODE, "conditions": [{"type": "Ready", "status": "True"}]},
    }
    api.documents[NODECLAIMS] = _list("NodeClaimList", [claim])


def run(api: FakeKubeApi, tmp_path, capsys, *argv: str) -> tuple[int, str]:
    path = write_stack_file(tmp_path, {"aws:region": "us-east-1", **KARPENTER_AWS}, "karpenter")
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", default="text")
    add_verify_arguments(parser)
    args = parser.parse_args(["--kubeconfig", str(api.write_kubeconfig(tmp_path / "kubeconfig")), *argv])
    code = run_verify(read_stack_file(path, "karpenter"), args)
    return code, capsys.readouterr().out


def test_nodes_with_the_promised_slices_match(api, tmp_path, capsys) -> None:
    cluster(api, ONE_G)
    code, out = run(api, tmp_path, capsys)
    assert code == 0, out
    assert NODEPOOLS in api.requests and NODECLAIMS in api.requests


def test_a_node_without_the_promised_slices_is_reported(api, tmp_path, capsys) -> None:
    cluster(api, {})
    code, out = run(api, tmp_path, capsys)
    assert code == 3  # a mismatch (errors.ExitStatus.MISMATCH)
    (line,) = [line for line in out.splitlines() if "NodeOverlay" in line]
    assert "pool p4d-1g: nvidia.com/mig-1g.5gb per node that its NodeOverlay promised Karpenter expected 56" in line
    assert f"got 0 on {NODE}: the overlay is wrong or the MIG manager failed" in line


def test_a_missing_nodepool_is_reported(api, tmp_path, capsys) -> None:
    cluster(api, ONE_G, nodepools=("l40s",))
    code, out = run(api, tmp_path, capsys)
    assert code == 3 and "pool p4d-1g: NodePool (karpenter.sh/v1) expected p4d-1g, got missing" in out


def test_the_nodeclaim_list_is_bounded(api, tmp_path, capsys) -> None:
    cluster(api, ONE_G)
    api.documents[NODECLAIMS] = {"kind": "NodeClaimList", "metadata": {}, "items": "not a list"}
    code, out = run(api, tmp_path, capsys, "--format", "json")
    assert code == 2 and json.loads(out)["ok"] is False
