"""The GPU/MIG catalog against published facts.

Expected values come from NVIDIA's MIG user guide ("Supported MIG Profiles"), the GPU Operator's
``default-mig-parted-config`` (v26.7.0), the AKS "multi-instance GPU" docs (``MIG1g``..``MIG7g``), and the
Azure / AWS instance-type pages (GPU model and count per size). They are written out here, never read
from the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpupools.catalog import GPU_MODELS, INSTANCE_SIZES, cloud_of_size_name, gpu_model, resolve_size, sizes_for
from gpupools.catalog.instances import InstanceSize

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
MIG_PARTED_CONFIG = REFERENCE / "gpu-operator" / "default-mig-parted-config.yaml"


# --------------------------------------------------------------------------------------------------
# MIG profiles (NVIDIA MIG user guide, "Supported MIG Profiles")
# --------------------------------------------------------------------------------------------------

# profile: (compute slices of 7, memory slices of 8, max instances per GPU)
A100_40GB_PROFILES = {
    "1g.5gb": (1, 1, 7),
    "1g.5gb+me": (1, 1, 1),
    "1g.10gb": (1, 2, 4),
    "2g.10gb": (2, 2, 3),
    "3g.20gb": (3, 4, 2),
    "4g.20gb": (4, 4, 1),
    "7g.40gb": (7, 8, 1),
}
A100_80GB_PROFILES = {
    "1g.10gb": (1, 1, 7),
    "1g.10gb+me": (1, 1, 1),
    "1g.20gb": (1, 2, 4),
    "2g.20gb": (2, 2, 3),
    "3g.40gb": (3, 4, 2),
    "4g.40gb": (4, 4, 1),
    "7g.80gb": (7, 8, 1),
}
# A30 24GB: 4 compute and 4 memory slices.
A30_PROFILES = {
    "1g.6gb": (1, 1, 4),
    "1g.6gb+me": (1, 1, 1),
    "2g.12gb": (2, 2, 2),
    "2g.12gb+me": (2, 2, 1),
    "4g.24gb": (4, 4, 1),
}


def test_a100_40gb_headline_profiles_and_counts():
    gpu = gpu_model("A100-40GB")
    assert gpu is not None and gpu.mig_capable
    counts = {name: gpu.profile(name).max_instances for name in ("1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")}
    assert counts == {"1g.5gb": 7, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1, "7g.40gb": 1}


@pytest.mark.parametrize(
    "gpu_name, expected",
    [
        ("A100-40GB", A100_40GB_PROFILES),
        ("A100-80GB", A100_80GB_PROFILES),
        ("H100-80GB", A100_80GB_PROFILES),
        ("A30-24GB", A30_PROFILES),
    ],
)
def test_profiles_match_the_mig_user_guide(gpu_name, expected):
    gpu = gpu_model(gpu_name)
    assert gpu is not None
    actual = {p.name: (p.compute_slices, p.memory_slices, p.max_instances) for p in gpu.profiles}
    assert actual == expected


@pytest.mark.parametrize(
    "gpu_name, names",
    [
        ("H100-NVL-94GB", ["1g.12gb", "1g.12gb+me", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"]),
        ("H200-141GB", ["1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"]),
        ("B200-180GB", ["1g.23gb", "1g.23gb+me", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"]),
    ],
)
def test_seven_slice_gpu_profile_names(gpu_name, names):
    gpu = gpu_model(gpu_name)
    assert gpu is not None
    assert sorted(p.name for p in gpu.profiles) == sorted(names)
    # Same 7-slice geometry as A100/H100: 1g x7, 1g(double memory) x4, 2g x3, 3g x2, 4g x1, 7g x1.
    maxima = [gpu.profile(name).max_instances for name in names]
    assert maxima == [7, 1, 4, 3, 2, 1, 1]


@pytest.mark.parametrize("gpu", [g for g in GPU_MODELS.values() if g.mig_capable], ids=lambda g: g.name)
def test_every_profile_fits_its_gpu_at_max_instances(gpu):
    """A GPU filled with ``max_instances`` of one profile never needs more slices than it has."""
    for profile in gpu.profiles:
        assert profile.max_instances >= 1
        assert profile.compute_slices * profile.max_instances <= gpu.compute_slices, profile.name
        assert profile.memory_slices * profile.max_instances <= gpu.memory_slices, profile.name
        # The GB figure in the name is the profile's memory.
        assert profile.name.split(".")[1].split("+")[0] == f"{profile.memory_gb}gb"
        assert profile.name.startswith(f"{profile.compute_slices}g.")
        assert profile.media_extensions == ("+me" in profile.name)


def test_a100_40gb_all_balanced_layout():
    # default-mig-parted-config all-balanced for A100-40GB: 1g.5gb x2, 2g.10gb x1, 3g.20gb x1
    assert gpu_model("A100-40GB").layouts["all-balanced"] == {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}
    assert gpu_model("A100-80GB").layouts["all-balanced"] == {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}
    assert gpu_model("A30-24GB").layouts["all-balanced"] == {"1g.6gb": 2, "2g.12gb": 1}


def test_named_layouts_use_nvidia_spelling():
    layouts = gpu_model("A100-40GB").layouts
    # NVIDIA spells the +me profile's layout with a dot: all-1g.5gb.me
    assert layouts["all-1g.5gb.me"] == {"1g.5gb+me": 1}
    assert layouts["all-1g.5gb"] == {"1g.5gb": 7}
    assert layouts["all-1g.10gb"] == {"1g.10gb": 4}
    assert layouts["all-7g.40gb"] == {"7g.40gb": 1}


# --------------------------------------------------------------------------------------------------
# AKS gpuInstanceProfile MIG<n>g -> profile (AKS docs, "Create a multi-instance GPU node pool")
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gpu_name, slices, expected",
    [
        ("A100-40GB", 1, "1g.5gb"),
        ("A100-40GB", 2, "2g.10gb"),
        ("A100-40GB", 3, "3g.20gb"),
        ("A100-40GB", 4, "4g.20gb"),
        ("A100-40GB", 7, "7g.40gb"),
        ("A100-80GB", 1, "1g.10gb"),
        ("A100-80GB", 2, "2g.20gb"),
        ("A100-80GB", 3, "3g.40gb"),
        ("A100-80GB", 4, "4g.40gb"),
        ("A100-80GB", 7, "7g.80gb"),
        ("H100-80GB", 1, "1g.10gb"),
        ("H100-80GB", 7, "7g.80gb"),
        ("H100-NVL-94GB", 1, "1g.12gb"),
        ("H100-NVL-94GB", 3, "3g.47gb"),
        ("H100-NVL-94GB", 7, "7g.94gb"),
    ],
)
def test_profile_for_slices(gpu_name, slices, expected):
    profile = gpu_model(gpu_name).profile_for_slices(slices)
    assert profile is not None and profile.name == expected


@pytest.mark.parametrize("slices", [5, 6, 8, 0])
def test_profile_for_slices_without_such_profile(slices):
    assert gpu_model("A100-40GB").profile_for_slices(slices) is None


@pytest.mark.parametrize("gpu_name", ["T4-16GB", "V100-16GB", "A10G-24GB", "L4-24GB", "L40S-48GB"])
def test_non_mig_gpus(gpu_name):
    gpu = gpu_model(gpu_name)
    assert gpu is not None
    assert not gpu.mig_capable
    assert gpu.profile_for_slices(1) is None
    assert gpu.layouts == {}


def test_unknown_gpu_model():
    assert gpu_model("V100-32GB") is None


# --------------------------------------------------------------------------------------------------
# Instance sizes: GPU model and count per node (Azure VM size pages, AWS EC2 accelerated computing)
# --------------------------------------------------------------------------------------------------

SIZES = {
    # Azure
    "Standard_ND96asr_v4": ("azure", "A100-40GB", 8),
    "Standard_ND96amsr_A100_v4": ("azure", "A100-80GB", 8),
    "Standard_NC24ads_A100_v4": ("azure", "A100-80GB", 1),
    "Standard_NC48ads_A100_v4": ("azure", "A100-80GB", 2),
    "Standard_NC96ads_A100_v4": ("azure", "A100-80GB", 4),
    "Standard_NC40ads_H100_v5": ("azure", "H100-NVL-94GB", 1),
    "Standard_NC80adis_H100_v5": ("azure", "H100-NVL-94GB", 2),
    "Standard_ND96isr_H100_v5": ("azure", "H100-80GB", 8),
    "Standard_ND96isr_H200_v5": ("azure", "H200-141GB", 8),
    "Standard_NC6s_v3": ("azure", "V100-16GB", 1),
    "Standard_NC4as_T4_v3": ("azure", "T4-16GB", 1),
    # AWS
    "p4d.24xlarge": ("aws", "A100-40GB", 8),
    "p4de.24xlarge": ("aws", "A100-80GB", 8),
    "p5.48xlarge": ("aws", "H100-80GB", 8),
    "p5e.48xlarge": ("aws", "H200-141GB", 8),
    "p5en.48xlarge": ("aws", "H200-141GB", 8),
    "p6-b200.48xlarge": ("aws", "B200-180GB", 8),
    "g5.xlarge": ("aws", "A10G-24GB", 1),
    "g5.12xlarge": ("aws", "A10G-24GB", 4),
    "g5.48xlarge": ("aws", "A10G-24GB", 8),
    "g6.xlarge": ("aws", "L4-24GB", 1),
    "g6.48xlarge": ("aws", "L4-24GB", 8),
    "g6e.xlarge": ("aws", "L40S-48GB", 1),
    "g6e.48xlarge": ("aws", "L40S-48GB", 8),
}
MIG_SIZES = {
    "Standard_ND96asr_v4",
    "Standard_ND96amsr_A100_v4",
    "Standard_NC24ads_A100_v4",
    "Standard_NC48ads_A100_v4",
    "Standard_NC96ads_A100_v4",
    "Standard_NC40ads_H100_v5",
    "Standard_NC80adis_H100_v5",
    "Standard_ND96isr_H100_v5",
    "Standard_ND96isr_H200_v5",
    "p4d.24xlarge",
    "p4de.24xlarge",
    "p5.48xlarge",
    "p5e.48xlarge",
    "p5en.48xlarge",
    "p6-b200.48xlarge",
}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_instance_size(name):
    cloud, gpu, count = SIZES[name]
    size = resolve_size(name)
    assert size is not None, f"{name} missing from the catalog"
    assert (size.name, size.cloud, size.gpu.name, size.gpus) == (name, cloud, gpu, count)
    assert INSTANCE_SIZES[name] is size
    assert size.gpu.mig_capable == (name in MIG_SIZES)
    assert name in sizes_for(cloud)
    assert name not in sizes_for("aws" if cloud == "azure" else "azure")
    assert cloud_of_size_name(name) == cloud


@pytest.mark.parametrize("family", ["g5.", "g6.", "g6e."])
def test_aws_g_families_have_no_mig(family):
    names = [name for name in INSTANCE_SIZES if name.startswith(family)]
    assert names
    assert all(not INSTANCE_SIZES[name].gpu.mig_capable for name in names)


def test_every_catalog_size_is_consistent_with_its_cloud_spelling():
    for name, size in INSTANCE_SIZES.items():
        assert size.cloud == cloud_of_size_name(name), name
        assert size.gpus >= 1


def test_unknown_size_and_custom_override():
    assert resolve_size("Standard_ND40rs_v2") is None
    custom = {"Standard_ND40rs_v2": InstanceSize("Standard_ND40rs_v2", "azure", gpu_model("V100-16GB"), 8)}
    assert resolve_size("Standard_ND40rs_v2", custom).gpus == 8
    # A custom entry wins over the built-in catalog.
    override = {"p4d.24xlarge": InstanceSize("p4d.24xlarge", "aws", gpu_model("A100-40GB"), 4)}
    assert resolve_size("p4d.24xlarge", override).gpus == 4
    assert resolve_size("p4d.24xlarge").gpus == 8


# --------------------------------------------------------------------------------------------------
# Cross-check against the GPU Operator's default-mig-parted-config (skipped without ../shared)
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mig_configs() -> dict:
    if not MIG_PARTED_CONFIG.is_file():
        pytest.skip(f"reference file not available: {MIG_PARTED_CONFIG}")
    configmap = yaml.safe_load(MIG_PARTED_CONFIG.read_text(encoding="utf-8"))
    assert configmap["kind"] == "ConfigMap"
    parted = yaml.safe_load(configmap["data"]["config.yaml"])
    return parted["mig-configs"]


def _filters(entry: dict) -> set[str] | None:
    """The PCI ids an entry applies to, or None for an entry without a device-filter (any GPU)."""
    value = entry.get("device-filter")
    if value is None:
        return None
    return {v.upper() for v in ([value] if isinstance(value, str) else value)}


def _pci(gpu) -> set[str]:
    return {p.upper() for p in gpu.pci_device_ids}


def _filtered_ids(mig_configs: dict) -> set[str]:
    ids: set[str] = set()
    for entries in mig_configs.values():
        for entry in entries:
            ids |= _filters(entry) or set()
    return ids


MIG_GPUS = [g for g in GPU_MODELS.values() if g.mig_capable]


def test_reference_covers_every_catalog_mig_gpu(mig_configs):
    ids = _filtered_ids(mig_configs)
    for gpu in MIG_GPUS:
        assert _pci(gpu) & ids, f"none of {gpu.name}'s PCI ids appears in a device-filter"


@pytest.mark.parametrize("gpu", MIG_GPUS, ids=lambda g: g.name)
def test_all_balanced_matches_reference(mig_configs, gpu):
    matched = 0
    for entry in mig_configs["all-balanced"]:
        ids = _filters(entry)
        if ids and ids & _pci(gpu):
            matched += 1
            assert gpu.layouts["all-balanced"] == entry["mig-devices"], (gpu.name, sorted(ids & _pci(gpu)))
    assert matched, f"no all-balanced entry for {gpu.name}"


@pytest.mark.parametrize("gpu", MIG_GPUS, ids=lambda g: g.name)
def test_all_profile_counts_match_reference(mig_configs, gpu):
    """Every ``all-<profile>`` entry that applies to this GPU gives the catalog's max_instances."""
    checked = set()
    for layout, entries in mig_configs.items():
        if layout in ("all-disabled", "all-enabled", "all-balanced"):
            continue
        for entry in entries:
            devices = entry.get("mig-devices") or {}
            if len(devices) != 1:
                continue
            ((name, count),) = devices.items()
            profile = gpu.profile(name)
            if profile is None:
                continue
            ids = _filters(entry)
            if ids is not None and not ids & _pci(gpu):
                continue
            assert count == profile.max_instances, (
                f"{layout} on {gpu.name}: reference {count}, catalog {profile.max_instances}"
            )
            assert layout == f"all-{profile.layout_token}"
            assert gpu.layouts[layout] == {name: count}
            checked.add(name)
    # Every catalog profile is backed by an applicable reference entry.
    assert checked == {p.name for p in gpu.profiles}, sorted({p.name for p in gpu.profiles} - checked)


def test_all_1g_10gb_depends_on_device(mig_configs):
    """The one filtered all-<profile> entry the A100s share: 4 on 40GB, 7 on 80GB GPUs."""
    by_gpu = {}
    for entry in mig_configs["all-1g.10gb"]:
        for gpu in (gpu_model("A100-40GB"), gpu_model("A100-80GB"), gpu_model("H100-80GB")):
            if _filters(entry) & _pci(gpu):
                by_gpu[gpu.name] = entry["mig-devices"]["1g.10gb"]
    assert by_gpu == {"A100-40GB": 4, "A100-80GB": 7, "H100-80GB": 7}
    for gpu_name, count in by_gpu.items():
        assert gpu_model(gpu_name).profile("1g.10gb").max_instances == count
