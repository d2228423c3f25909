"""A cluster's ResourceSlices at scale (issue 25: a 50 MB slice list ran past 20 s): they are asked for in small pages
and counted page by page as they come, never all held at once; a device's attributes verify does not read are not
modelled (a dozen per device made validating them most of the work), while the ones it reads stay checked."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gpupools.verify.cluster import SLICE_PAGE_SIZE, ClusterReader
from gpupools.verify.objects import ResourceSliceList
from gpupools.verify.resource_slices import node_devices, read_resource_slices
from support.dra_slices import node_slice
from support.fake_kube_api import RESOURCE_SLICES, FakeKubeApi

PRODUCT = "NVIDIA A100-SXM4-40GB"


@pytest.fixture
def api():
    server = FakeKubeApi().start()
    yield server
    server.stop()


def _reader(api: FakeKubeApi, tmp_path: Path) -> ClusterReader:
    kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
    return ClusterReader.from_kubeconfig(str(kubeconfig), time.monotonic() + 30, retry=False)


def test_slices_are_read_in_small_pages_as_they_are_counted(api: FakeKubeApi, tmp_path: Path) -> None:
    api.resource_slices = [
        node_slice(f"node-{n}", 8, PRODUCT, 40, {"1g.5gb": 7}) for n in range(2 * SLICE_PAGE_SIZE + 1)
    ]
    slices = read_resource_slices(_reader(api, tmp_path))
    assert api.requests.count(RESOURCE_SLICES) == 0  # nothing asked until the count starts
    found = node_devices(slices)
    assert api.requests.count(RESOURCE_SLICES) == 3  # 101 slices in pages of 50
    assert len(found) == 2 * SLICE_PAGE_SIZE + 1 and found["node-7"].devices == {"mig 1g.5gb": 56}


def test_attributes_verify_does_not_read_are_not_modelled_but_the_ones_it_reads_are() -> None:
    piece = node_slice("n", 1, PRODUCT, 40, None)
    device = piece["spec"]["devices"][0]
    device["attributes"]["driverVersion"] = {"version": ["not", "a", "string"]}  # unread: not refused
    [kept] = ResourceSliceList.model_validate({"items": [piece]}).items[0].spec.devices
    assert set(kept.attributes) == {"type"} | ({"profile"} & set(device["attributes"]))
    device["attributes"]["type"] = {"string": ["gpu"]}  # read: refused
    with pytest.raises(Exception, match="string"):
        ResourceSliceList.model_validate({"items": [piece]})


def test_too_many_attributes_are_still_refused() -> None:
    piece = node_slice("n", 1, PRODUCT, 40, None)
    piece["spec"]["devices"][0]["attributes"] = {f"a{n}": {"string": "x"} for n in range(1001)}
    with pytest.raises(Exception, match="at most 1000"):
        ResourceSliceList.model_validate({"items": [piece]})
