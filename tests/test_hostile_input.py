"""Hostile or sloppy YAML: wrong scalar types, empty strings, control characters, snake_case keys, catalog redefinition."""

from __future__ import annotations

import copy

import pytest

from gpupools.config import ConfigError, load_stack

AZURE = {
    "gpupools:cloud": "azure",
    "gpupools:cluster": {"name": "gpu-dev", "resourceGroup": "gpu-dev-rg", "location": "southcentralus",
                         "systemPool": {"size": "Standard_D4s_v5"}},
    "gpupools:gpuPools": [{"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}}],
    "gpupools:gpuSoftware": {"installer": "device-plugin"},
}


def problems(mutate) -> dict[str, str]:
    raw = copy.deepcopy(AZURE)
    mutate(raw)
    with pytest.raises(ConfigError) as caught:
        load_stack(raw)
    return {p.field: p.message for p in caught.value.problems}


def pool(raw: dict) -> dict:
    return raw["gpupools:gpuPools"][0]


@pytest.mark.parametrize("value", [True, "3", 2.0, 1.5])
def test_counts_are_integers_only(value):
    found = problems(lambda raw: pool(raw).update(count=value))
    assert "gpupools:gpuPools[0].count" in found
    assert repr(value) in found["gpupools:gpuPools[0].count"]  # the given value is shown


def test_bools_are_bools_only():
    assert "gpupools:gpuPools[0].smokeTest" in problems(lambda raw: pool(raw).update(smokeTest="yes"))
    assert "gpupools:cluster.create" in problems(lambda raw: raw["gpupools:cluster"].update(create=1))


def test_empty_strings_are_refused():
    assert "gpupools:gpuSoftware.version" in problems(lambda raw: raw["gpupools:gpuSoftware"].update(version=""))
    assert "gpupools:gpuPools[0].name" in problems(lambda raw: pool(raw).update(name=""))
    assert "gpupools:cluster.name" in problems(lambda raw: raw["gpupools:cluster"].update(name=""))


@pytest.mark.parametrize("where, mutate", [
    ("gpupools:gpuPools[0].name", lambda raw: pool(raw).update(name="mig1g\n")),
    ("gpupools:gpuPools[0].size", lambda raw: pool(raw).update(size="Standard_ND96asr_v4\t")),
    ("gpupools:gpuSoftware.version", lambda raw: raw["gpupools:gpuSoftware"].update(version="0.20.0\n")),
    ("gpupools:gpuPools[0].labels", lambda raw: pool(raw).update(labels={"team\n": "ml"})),
    ("gpupools:tags", lambda raw: raw.update({"gpupools:tags": {"owner": "me\x00"}})),
    ("gpupools:cluster.name", lambda raw: raw["gpupools:cluster"].update(name="gpu\u200bdev")),
])
def test_control_characters_are_refused_everywhere(where, mutate):
    found = problems(mutate)
    assert where in found and "control character" in found[where]


def test_snake_case_keys_are_unknown():
    found = problems(lambda raw: pool(raw).update(os_sku="Ubuntu"))
    assert "unknown key 'os_sku'" in found["gpupools:gpuPools[0].os_sku"]
    assert "osSku" in found["gpupools:gpuPools[0].os_sku"]
    assert "gpupools:gpuSoftware.mig_strategy" in problems(
        lambda raw: raw["gpupools:gpuSoftware"].update(mig_strategy="mixed"))


def test_custom_sizes_cannot_redefine_the_catalog():
    found = problems(lambda raw: raw.update({"gpupools:customSizes": {"Standard_ND96asr_v4": {"gpu": "A100-80GB",
                                                                                             "gpus": 8}}}))
    assert "catalog" in found["gpupools:customSizes.Standard_ND96asr_v4"]


def test_custom_sizes_for_missing_sizes_still_work():
    raw = copy.deepcopy(AZURE)
    raw["gpupools:customSizes"] = {"Standard_ND40rs_v2": {"gpu": "V100-16GB", "gpus": 8}}
    raw["gpupools:gpuPools"] = [{"name": "vonehundred", "size": "Standard_ND40rs_v2"}]
    raw["gpupools:gpuSoftware"]["migStrategy"] = "none"
    assert load_stack(raw).pools[0].gpus_per_node == 8
