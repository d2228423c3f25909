"""The one MIG spelling map (issue 28): AKS ``MIG<n>g`` = NVIDIA's profile on the pool's GPU = the device plugin's
resource = the DRA driver's device. Expected pairs are AKS's table in aks-docs ``gpu-multi-instance.md`` ("MIG1g:
1g.5gb" on A100 40GB, "1g.10gb" on A100 80GB) and the device plugin's README (``nvidia.com/mig-<profile>`` with
``migStrategy: mixed``)."""

from __future__ import annotations

import pytest

from gpupools.catalog.gpus import GPU_MODELS
from gpupools.catalog.mig_spellings import aks_name_of, aks_names, aks_profile, mig_spelling


@pytest.mark.parametrize(
    ("gpu", "aks", "profile"),
    [
        ("A100-40GB", "MIG1g", "1g.5gb"),
        ("A100-40GB", "MIG2g", "2g.10gb"),
        ("A100-40GB", "MIG3g", "3g.20gb"),
        ("A100-40GB", "MIG4g", "4g.20gb"),
        ("A100-40GB", "MIG7g", "7g.40gb"),
        ("A100-80GB", "MIG1g", "1g.10gb"),
        ("A100-80GB", "MIG7g", "7g.80gb"),
        ("H100-80GB", "MIG3g", "3g.40gb"),
    ],
)
def test_aks_names_select_the_smallest_memory_profile_of_their_slices(gpu, aks, profile) -> None:
    model = GPU_MODELS[gpu]
    assert aks_profile(model, aks).name == profile
    assert aks_name_of(model, model.profile(profile)) == aks


def test_profiles_no_aks_value_selects_have_no_aks_name() -> None:
    a100 = GPU_MODELS["A100-40GB"]
    # 1g.10gb has one compute slice like MIG1g, but AKS's MIG1g makes 1g.5gb.
    assert aks_name_of(a100, a100.profile("1g.10gb")) is None
    assert aks_name_of(a100, a100.profile("1g.5gb+me")) is None


def test_a30_has_no_three_or_seven_slice_profile() -> None:
    assert aks_names(GPU_MODELS["A30-24GB"]) == ["MIG1g", "MIG2g", "MIG4g"]
    assert aks_profile(GPU_MODELS["A30-24GB"], "MIG7g") is None
    assert aks_profile(GPU_MODELS["A100-40GB"], "MIG5g") is None  # no such AKS value


def test_every_spelling_of_1g_5gb_on_a100_40gb() -> None:
    a100 = GPU_MODELS["A100-40GB"]
    spelling = mig_spelling(a100, a100.profile("1g.5gb"))
    assert (spelling.aks, spelling.profile, spelling.gpu) == ("MIG1g", "1g.5gb", "A100-40GB")
    assert spelling.layout == "all-1g.5gb"
    assert spelling.resource == "nvidia.com/mig-1g.5gb"
    assert spelling.dra_device == "gpu.nvidia.com device type=mig profile=1g.5gb"


def test_media_extension_profiles_drop_the_plus_in_resource_names() -> None:
    a100 = GPU_MODELS["A100-40GB"]
    spelling = mig_spelling(a100, a100.profile("1g.5gb+me"))
    assert spelling.resource == "nvidia.com/mig-1g.5gb.me"  # '+' is not allowed in a resource name
    assert spelling.dra_device.endswith("profile=1g.5gb+me")  # the driver's attribute keeps NVIDIA's name
