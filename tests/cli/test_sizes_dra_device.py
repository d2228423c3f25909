"""``gpupools sizes --json`` gives each MIG profile's DRA device beside its AKS name and device plugin resource."""

from __future__ import annotations

import json

from support.cli import run_cli


def test_each_profile_names_its_dra_device() -> None:
    run = run_cli("sizes", "--json", "--size", "Standard_ND96asr_v4")
    assert run.code == 0, run.err
    (row,) = json.loads(run.out)["sizes"]
    by_profile = {p["profile"]: p for p in row["migProfiles"]}
    one = by_profile["1g.5gb"]
    assert (one["aks"], one["resourceMixed"]) == ("MIG1g", "nvidia.com/mig-1g.5gb")
    assert one["draDevice"] == "gpu.nvidia.com device type=mig profile=1g.5gb"
