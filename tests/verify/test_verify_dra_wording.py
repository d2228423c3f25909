"""``verify`` speaks DRA (issue 24, item 5): the devices each node's ResourceSlices must list, in text and JSON, the
DRA kubelet plugin by its name, and a node whose pool is only partly published is not ok. The slices carry the
driver's own device names (support.dra_slices). Figures: Standard_ND96asr_v4 has 8x A100 40GB, 7x 1g.5gb each.
"""

from __future__ import annotations

import json

import pytest

from gpupools.verify.resource_slices import node_devices, slice_mismatches
from support.dra_slices import node_slice
from support.fake_kube_api import FakeKubeApi
from test_verify_dra import AKS_NODE, PRODUCT, aks, verify


@pytest.fixture
def api():
    server = FakeKubeApi().start()
    server.version = {"major": "1", "minor": "34", "gitVersion": "v1.34.2", "platform": "linux/amd64"}
    yield server
    server.stop()


def test_text_names_the_devices_per_node_and_the_kubelet_plugin(api, tmp_path, capsys) -> None:
    aks(api)
    assert verify(api, tmp_path, "aks") == 0
    out = capsys.readouterr().out
    assert "per node 56x mig 1g.5gb in ResourceSlices (gpu.nvidia.com)" in out
    assert f"{AKS_NODE}: 56x mig 1g.5gb in ResourceSlices (gpu.nvidia.com), DRA kubelet plugin ready" in out
    assert "device plugin" not in out.replace("DRA kubelet plugin", "")


def test_json_names_the_devices_per_node(api, tmp_path, capsys) -> None:
    aks(api)
    assert verify(api, tmp_path, "aks", "--format", "json") == 0
    (pool,) = json.loads(capsys.readouterr().out)["pools"]
    assert pool["expected"] == {"mig 1g.5gb": 56}
    assert pool["expectedIn"] == "ResourceSlices (gpu.nvidia.com)"
    assert pool["nodes"][0]["devices"] == {"mig 1g.5gb": 56}


def test_a_kubelet_plugin_not_ready_is_named_as_such(api, tmp_path, capsys) -> None:
    aks(api)
    api.pods.clear()
    assert verify(api, tmp_path, "aks") == 3
    out = capsys.readouterr().out
    assert "DRA kubelet plugin pod (dra-driver-nvidia-gpu/dra-driver-nvidia-gpu-kubelet-plugin) expected ready" in out


def test_a_node_publishing_part_of_its_slices_is_not_ok_even_when_the_counts_match() -> None:
    first = node_slice("n", 8, PRODUCT, 40, {"1g.5gb": 7})
    first["spec"]["pool"]["resourceSliceCount"] = 2  # the second slice (say, empty) has not arrived
    published = node_devices([first])
    problems = slice_mismatches("mig1g", ["n"], {"mig 1g.5gb": 56}, published)
    assert [str(p) for p in problems] == [
        "pool mig1g, node n: ResourceSlices (gpu.nvidia.com) of the newest generation expected 2, got 1"
    ]
    assert problems[0].in_progress  # --timeout waits for the rest; at the end it is a mismatch


def test_test_slices_carry_the_drivers_device_names() -> None:
    names = [d["name"] for d in node_slice("n", 1, PRODUCT, 40, {"1g.5gb": 7})["spec"]["devices"]]
    assert names == [f"gpu-0-mig-1g5gb-19-{start}" for start in range(7)]  # driver 0.4.1 mig.go ToCanonicalName
