"""The MIG manager's config for a node cut per GPU: one mig-parted entry per group of device indexes, whole GPUs
``mig-enabled: false``, checked entry by entry against the shapes of NVIDIA's own files (mig-parted's
``examples/config.yaml`` and ``dgx-station-80gb-config.yaml``, the GPU Operator's ``default-mig-parted-config``),
and read back GPU by GPU as mig-parted would. The reference tests skip without ``../shared/reference``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupools.catalog.labels import MIG_CONFIG_LABEL
from gpupools.charts.mig_parted import mig_parted_config, mig_parted_configmap_data
from gpupools.resolve.stack_loader import load_stack
from support.base_configs import PINNED_AWS, config

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
MIX = {"1g.10gb": 4, "1g.20gb": 1, "2g.20gb": 1}
LAYOUT = [{"gpus": 2, "whole": True}, {"gpus": 5, "mix": MIX}, {"gpus": 1, "mix": {"7g.80gb": 1}}]
A100_80GB_PCI = ["0x20B210DE", "0x20B510DE", "0x20F310DE", "0x20F510DE"]


def _stack():
    pools = [{"name": "p4de", "size": "p4de.24xlarge", "count": 1, "mig": {"layout": LAYOUT}}]
    return load_stack({**config(PINNED_AWS), "gpupools:gpuPools": pools})


def _reference_entries() -> list[dict[str, Any]]:
    files = [
        REFERENCE / "mig-parted" / "examples" / "config.yaml",
        REFERENCE / "mig-parted" / "examples" / "dgx-station-80gb-config.yaml",
    ]
    operator = REFERENCE / "gpu-operator" / "default-mig-parted-config.yaml"
    if not all(path.is_file() for path in [*files, operator]):
        pytest.skip("reference files not available under ../shared/reference")
    configs = [yaml.safe_load(path.read_text(encoding="utf-8")) for path in files]
    configmap = yaml.safe_load(operator.read_text(encoding="utf-8"))
    configs.append(yaml.safe_load(configmap["data"]["config.yaml"]))
    return [entry for parted in configs for entries in parted["mig-configs"].values() for entry in entries]


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "list of " + ",".join(sorted({type(item).__name__ for item in value}))
    if isinstance(value, dict):
        return "map of " + ",".join(sorted({f"{type(k).__name__}:{type(v).__name__}" for k, v in value.items()}))
    return type(value).__name__


def _ours() -> list[dict[str, Any]]:
    stack = _stack()
    data = mig_parted_configmap_data(stack)
    assert data is not None
    parted = yaml.safe_load(data["config.yaml"])
    assert parted["version"] == "v1"
    return parted["mig-configs"][stack.pools[0].labels[MIG_CONFIG_LABEL]]


def test_each_entry_has_a_shape_nvidia_files_use():
    reference = _reference_entries()
    shapes = {tuple(sorted((key, _kind(value)) for key, value in entry.items())) for entry in reference}
    devices_kinds = {_kind(entry["devices"]) for entry in reference}
    for entry in _ours():
        kinds = {key: _kind(value) for key, value in entry.items()}
        assert kinds["devices"] in devices_kinds
        # The same keys with the same kinds as some entry of NVIDIA's; device-filter is a list, as the operator's.
        without_filter = tuple(sorted((k, v) for k, v in kinds.items() if k != "device-filter"))
        assert any(
            tuple(sorted((k, v) for k, v in shape if k != "device-filter")) == without_filter for shape in shapes
        ), entry
        assert kinds["device-filter"] in {_kind(e["device-filter"]) for e in reference if "device-filter" in e}


def test_read_gpu_by_gpu_the_entries_are_the_stack_files_layout():
    per_gpu: dict[int, dict[str, int] | None] = {}
    for entry in _ours():
        assert entry["device-filter"] == A100_80GB_PCI
        for index in entry["devices"]:
            assert index not in per_gpu, f"GPU {index} in two entries"
            per_gpu[index] = entry["mig-devices"] if entry["mig-enabled"] else None
            assert entry["mig-enabled"] == ("mig-devices" in entry)
    expected: list[dict[str, int] | None] = []
    for group in LAYOUT:
        expected += [group.get("mix")] * group["gpus"]
    assert [per_gpu[index] for index in range(8)] == expected


def test_the_all_disabled_default_stays_and_a_uniform_pool_keeps_devices_all():
    pools = [
        {"name": "p4de", "size": "p4de.24xlarge", "count": 1, "mig": {"layout": LAYOUT}},
        {"name": "mix", "size": "p4de.24xlarge", "count": 1, "mig": {"layout": MIX}},
    ]
    stack = load_stack({**config(PINNED_AWS), "gpupools:gpuPools": pools})
    parted = mig_parted_config(stack)
    assert parted is not None
    assert parted["mig-configs"]["all-disabled"] == [{"devices": "all", "mig-enabled": False}]
    (uniform,) = parted["mig-configs"]["gpupools-mix"]
    assert uniform["devices"] == "all" and uniform["mig-devices"] == MIX
