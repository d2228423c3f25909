"""``gpupools sizes``: the catalog's sizes with their MIG profiles and spellings. Expected profiles and per-GPU counts
are NVIDIA's (MIG user guide, mig-parted ``all-<profile>`` configs) for the A100 40GB both sizes carry; the AKS
names are AKS's gpuInstanceProfile values (MIG<n>g = the smallest n-slice profile)."""

from __future__ import annotations

import json

import pytest

from support.cli import run_cli

A100_40GB = {  # profile -> (compute slices, memory slices, instances per GPU)
    "1g.5gb": (1, 1, 7),
    "1g.5gb+me": (1, 1, 1),
    "1g.10gb": (1, 2, 4),
    "2g.10gb": (2, 2, 3),
    "3g.20gb": (3, 4, 2),
    "4g.20gb": (4, 4, 1),
    "7g.40gb": (7, 8, 1),
}
AKS_NAMES = {"MIG1g": "1g.5gb", "MIG2g": "2g.10gb", "MIG3g": "3g.20gb", "MIG4g": "4g.20gb", "MIG7g": "7g.40gb"}
BALANCED = {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}


def _sizes(*args: str) -> dict[str, dict]:
    run = run_cli("sizes", "--json", *args)
    assert run.code == 0 and run.err == "", run.err
    return {row["size"]: row for row in json.loads(run.out)["sizes"]}


@pytest.mark.parametrize(("size", "cloud"), [("Standard_ND96asr_v4", "azure"), ("p4d.24xlarge", "aws")])
def test_a100_sizes_list_nvidias_mig_profiles(size: str, cloud: str) -> None:
    row = _sizes()[size]
    assert (row["cloud"], row["gpu"], row["gpus"]) == (cloud, "A100-40GB", 8)
    profiles = {p["profile"]: (p["computeSlices"], p["memorySlices"], p["perGpu"]) for p in row["migProfiles"]}
    assert profiles == A100_40GB
    assert row["layouts"]["all-balanced"] == BALANCED
    assert row["layouts"]["all-1g.5gb"] == {"1g.5gb": 7}
    assert "mig" in row["sharing"] and "timeSlicing" in row["sharing"]
    resources = {p["profile"]: p["resourceMixed"] for p in row["migProfiles"]}
    assert resources["1g.5gb"] == "nvidia.com/mig-1g.5gb" and resources["3g.20gb"] == "nvidia.com/mig-3g.20gb"


def test_aks_spelling_map_on_azure_only() -> None:
    sizes = _sizes()
    azure = {p["aks"]: p["profile"] for p in sizes["Standard_ND96asr_v4"]["migProfiles"] if p["aks"]}
    assert azure == AKS_NAMES
    assert all(p["aks"] is None for p in sizes["p4d.24xlarge"]["migProfiles"])


def test_filters_and_price_regions() -> None:
    aws = _sizes("--cloud", "aws")
    assert "p4d.24xlarge" in aws and all(row["cloud"] == "aws" for row in aws.values())
    one = _sizes("--size", "Standard_ND96asr_v4")
    assert list(one) == ["Standard_ND96asr_v4"]
    # Pulumi.dev.yaml's region, whose plan prices this size from the packaged snapshot.
    assert "southcentralus" in one["Standard_ND96asr_v4"]["priceRegions"]["onDemand"]


def test_mig_less_gpu_has_no_mig() -> None:
    row = _sizes("--size", "g5.xlarge")["g5.xlarge"]
    assert row["migProfiles"] == [] and "mig" not in row["sharing"] and "mps" in row["sharing"]


def test_text_shows_the_spellings_and_unknown_size_is_refused() -> None:
    run = run_cli("sizes", "--size", "Standard_ND96asr_v4")
    assert run.code == 0
    assert "MIG1g = 1g.5gb" in run.out and "nvidia.com/mig-1g.5gb" in run.out
    bad = run_cli("sizes", "--size", "Standard_NOPE")
    assert bad.code == 2 and "Standard_NOPE" in bad.err
