"""Pool rotation: a surge pool gets a new cloud name when a field fixed at creation changes, and is replaced
create-first.

Expected facts: AKS pool names are 1..12 lowercase letters and digits starting with a letter (AKS "Create node
pools", naming rules); EKS node group names are unique per cluster (CreateNodegroup ResourceInUseException);
the fields fixed at creation are ``immutable_fields``' tables, each with its source. What the components are given
under mocks is checked in tests/platform/test_rotation_components.py, the capacity diff in
tests/plan/test_rotation_diff.py: this module runs no program, so ``-m pure`` loads no cloud SDK for it.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.base_configs import AWS, AZURE, config
from support.rotation_cases import NOT_WRITTEN, WRITTEN_DEFAULTS, written_and_defaulted
from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from gpupools.catalog.fixed_fields import AKS_AGENT_POOL, EKS_NODE_GROUP
from gpupools.domain.pools import aks_fixed_fields, eks_fixed_fields
from gpupools.domain.naming import generation
from gpupools.domain.rotation import name_clashes

ROOT = Path(__file__).resolve().parents[2]
AKS_NAME = re.compile(r"[a-z][a-z0-9]{0,11}")  # AKS: lowercase letters and digits, starting with a letter, <= 12


def _pool(raw: dict, index: int = 0):
    return load_stack(raw).pools[index]


# --- rotation per pool ---------------------------------------------------------------------------------------


def test_pools_with_nodes_surge_and_empty_pools_recreate_by_default() -> None:
    assert _pool(config(AZURE)).rotation == "surge"
    empty = _pool(config(AZURE, {"count": 0}))
    assert empty.rotation == "recreate" and empty.cloud_pool_name == "mig1g"
    assert _pool(config(AZURE, {"rotation": "recreate"})).cloud_pool_name == "mig1g"
    assert _pool(config(AZURE, {"count": 0, "rotation": "surge"})).cloud_pool_name != "mig1g"


def test_an_unknown_rotation_is_one_error_naming_the_field() -> None:
    with pytest.raises(ConfigError) as error:
        load_stack(config(AZURE, {"rotation": "blue-green"}))
    (line,) = str(error.value).splitlines()
    assert "gpuPools[0].rotation" in line and "blue-green" in line and "recreate" in line and "surge" in line


# --- AKS names -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "mig1g", "gpuworkers1", "abcdefghijkl"])
def test_an_aks_surge_name_is_a_valid_pool_name_that_starts_with_the_config_name(name: str) -> None:
    cloud_name = _pool(config(AZURE, {"name": name})).cloud_pool_name
    assert AKS_NAME.fullmatch(cloud_name) and len(cloud_name) <= 12 and cloud_name != "system"
    assert cloud_name.startswith(name[:7]) and cloud_name != name


def test_the_name_is_the_same_in_another_process() -> None:
    """Stable across runs: no per-process hash seed, no clock, no randomness. One other process, whose string hashes
    are shown to differ from this one's, is enough (a second would only repeat the comparison)."""
    script = (
        "import sys; sys.path.insert(0, 'tests'); from support.base_configs import AZURE, config; "
        "from gpupools.resolve import load_stack; print(hash('gpupools')); "
        "print(load_stack(config(AZURE)).pools[0].cloud_pool_name)"
    )
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    shown = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": seed, "PATH": ""},
    ).stdout.split()
    assert int(shown[0]) != hash("gpupools")
    assert shown[1:] == [_pool(config(AZURE)).cloud_pool_name]


def test_the_aks_generation_covers_exactly_the_fields_fixed_at_creation() -> None:
    assert set(aks_fixed_fields(_pool(config(AZURE)), "preinstalled")) == set(AKS_AGENT_POOL)


# Each changes one AKS_AGENT_POOL field (in brackets) and nothing else the pool is created with.
AKS_FIXED_CHANGES = {
    "vmSize": ({"size": "Standard_ND96amsr_A100_v4"}, {}),
    "gpuInstanceProfile": ({"mig": {"profile": "MIG3g"}}, {}),
    "maxPods": ({"maxPods": 200}, {}),
    "availabilityZones": ({"availabilityZones": ["1"]}, {}),
    "scaleSetPriority": ({"priority": "Spot"}, {}),
    "gpuProfile": (
        {"mig": {"profile": "MIG1g"}},
        {"installer": "gpu-operator", "driver": "operator", "version": "v26.7.0"},
    ),
}


@pytest.mark.parametrize("field", sorted(AKS_FIXED_CHANGES))
def test_each_aks_fixed_field_gives_a_new_name(field: str) -> None:
    pool_change, software = AKS_FIXED_CHANGES[field]
    base, changed = _pool(config(AZURE)), _pool(config(AZURE, pool_change, gpuSoftware=software))
    fixed_before = aks_fixed_fields(base, "preinstalled")
    fixed_after = aks_fixed_fields(changed, "operator" if software.get("driver") == "operator" else "preinstalled")
    assert fixed_before[field] != fixed_after[field]
    assert changed.cloud_pool_name != base.cloud_pool_name


def test_spot_price_and_eviction_policy_each_give_a_new_name() -> None:
    spot = {"priority": "Spot"}
    base = _pool(config(AZURE, spot)).cloud_pool_name
    assert _pool(config(AZURE, {**spot, "spotMaxPrice": 5.5})).cloud_pool_name != base
    assert _pool(config(AZURE, {**spot, "evictionPolicy": "Deallocate"})).cloud_pool_name != base


@pytest.mark.parametrize(
    "change", [{"count": 3}, {"labels": {"example.com/team": "vision"}}, {"osSku": "Ubuntu2204"}, {"diskSizeGb": 512}]
)
def test_changes_made_in_place_keep_the_name(change: dict) -> None:
    assert _pool(config(AZURE, change)).cloud_pool_name == _pool(config(AZURE)).cloud_pool_name


# --- EKS names -----------------------------------------------------------------------------------------------


def test_the_eks_generation_covers_exactly_the_fields_fixed_at_creation() -> None:
    assert set(eks_fixed_fields(_pool(config(AWS)), [], "AL2023_x86_64_NVIDIA")) == set(EKS_NODE_GROUP)


_NETWORK = {"subnetIds": ["subnet-0123456789abcdef0"], "vpcId": "vpc-0123456789abcdef0"}


@pytest.mark.parametrize(
    "change",
    [
        {"size": "p4de.24xlarge"},
        {"capacityType": "SPOT"},
        {"diskSizeGb": 512},
        {"subnetIds": ["subnet-89abcdef"]},
        {"efa": True, "subnetIds": _NETWORK["subnetIds"]},  # EFA brings a launch template (the subnets stay the same)
    ],
)
def test_each_eks_fixed_field_gives_a_new_node_group_name(change: dict) -> None:
    base, changed = _pool(config(AWS, cluster=_NETWORK)), _pool(config(AWS, change, cluster=_NETWORK))
    assert changed.cloud_pool_name != base.cloud_pool_name
    assert re.fullmatch(r"p4d-[a-z0-9]{5}", changed.cloud_pool_name)


# --- the MIG layout of a surge pool the GPU Operator cuts ------------------------------------------------------


def test_an_operator_cut_surge_pools_generation_hashes_its_per_gpu_layout() -> None:
    """The GPU Operator re-cuts a live node for a new layout label (slices offline): surge makes it a new pool."""
    pool = _pool(config(AWS))
    assert pool.mig is not None and pool.mig.applied_by == "operator" and pool.layout_in_generation
    fixed = eks_fixed_fields(pool, [], "AL2023_x86_64_NVIDIA")
    # all-balanced on p4d, per GPU as the stack file writes it: 2x 1g.5gb, 1x 2g.10gb, 1x 3g.20gb on each of 8.
    per_gpu = [{"gpus": 8, "mix": {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}}]
    assert pool.generation == generation("p4d", {**fixed, "nvidia.com/mig.config": per_gpu})
    assert pool.generation != generation("p4d", fixed)


@pytest.mark.parametrize(
    "layout", ["all-1g.5gb", "all-3g.20gb", [{"gpus": 4, "mix": {"1g.5gb": 7}}, {"gpus": 4, "whole": True}]]
)
def test_a_layout_change_gives_an_operator_cut_surge_pool_a_new_name(layout) -> None:
    changed = _pool(config(AWS, {"mig": {"layout": layout}}))
    assert changed.cloud_pool_name != _pool(config(AWS)).cloud_pool_name
    assert re.fullmatch(r"p4d-[a-z0-9]{5}", changed.cloud_pool_name)


def test_pools_without_surge_or_without_the_operators_cut_hash_no_layout() -> None:
    recreate = _pool(config(AWS, {"rotation": "recreate", "mig": {"layout": "all-1g.5gb"}}))
    assert not recreate.layout_in_generation and recreate.cloud_pool_name == "p4d"
    aks = _pool(config(AZURE))  # AKS cuts it at creation (gpuInstanceProfile, already a fixed field)
    assert aks.mig is not None and aks.mig.applied_by == "aks" and not aks.layout_in_generation
    whole = copy.deepcopy(config(AWS))
    del whole["gpupools:gpuPools"][0]["mig"]
    assert not _pool(whole).layout_in_generation


def test_a_long_eks_name_is_cut_to_what_the_node_group_component_takes() -> None:
    name = "a" * 54  # the longest pool name on aws
    cloud_name = _pool(config(AWS, {"name": name})).cloud_pool_name
    assert len(cloud_name) == 54 and cloud_name.startswith("a" * 48 + "-")
    assert _pool(config(AWS, {"count": 2})).cloud_pool_name == _pool(config(AWS)).cloud_pool_name


# --- a default written out is the default ----------------------------------------------------------------------


def test_every_fixed_field_is_either_covered_by_a_written_default_or_not_written() -> None:
    assert set(WRITTEN_DEFAULTS) | NOT_WRITTEN == set(AKS_AGENT_POOL) | set(EKS_NODE_GROUP)


@pytest.mark.parametrize("field", sorted(WRITTEN_DEFAULTS))
def test_a_default_written_out_keeps_the_cloud_name(field: str) -> None:
    defaulted, written = written_and_defaulted(field)
    assert _pool(defaulted).rotation == "surge"
    assert _pool(written).cloud_pool_name == _pool(defaulted).cloud_pool_name


# --- names that collide ----------------------------------------------------------------------------------------


def test_a_pool_named_like_another_pools_generation_is_refused() -> None:
    taken = _pool(config(AZURE)).cloud_pool_name
    raw = config(AZURE)
    raw["gpupools:gpuPools"].append(
        {"name": taken, "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}, "rotation": "recreate"}
    )
    with pytest.raises(ConfigError) as error:
        load_stack(raw)
    (line,) = str(error.value).splitlines()
    assert line.startswith("gpupools:gpuPools[1].name")
    assert f"'{taken}'" in line and "gpuPools[0] ('mig1g')" in line and "rotation: recreate" in line


def test_two_surge_pools_whose_truncated_names_and_hashes_meet_are_refused() -> None:
    """Names share their first 7 characters; search for two whose generations collide (the hash is 5 base-36
    characters, so a few thousand candidates suffice), then load them together."""
    from gpupools.domain.naming import cloud_pool_name, generation

    fixed = aks_fixed_fields(_pool(config(AZURE)), "preinstalled")
    seen: dict[str, str] = {}
    pair = None
    for number in range(200_000):
        name = f"workers{number:x}"[:12]
        cloud_name = cloud_pool_name("azure", name, generation(name, fixed))
        if cloud_name in seen:
            pair = (seen[cloud_name], name)
            break
        seen[cloud_name] = name
    assert pair is not None
    raw = copy.deepcopy(config(AZURE))
    raw["gpupools:gpuPools"] = [
        {"name": name, "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}} for name in pair
    ]
    with pytest.raises(ConfigError) as error:
        load_stack(raw)
    assert str(error.value).startswith("gpupools:gpuPools[1].name: its cloud pool name")


def test_the_aks_system_pool_name_is_reserved() -> None:
    assert name_clashes("azure", [(0, "s", "system")]) == [
        (0, "its cloud pool name 'system' (from 's') is reserved; rename the pool or set rotation: recreate")
    ]
    assert name_clashes("aws", [(0, "system", "system")]) == []
