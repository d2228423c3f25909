"""Advertised GPU capacity against published figures, plus property-based checks.

Figures: an A100 40GB holds 7x 1g.5gb, 3x 2g.10gb, 2x 3g.20gb or 1x 4g.20gb, and NVIDIA's all-balanced
layout is 2x 1g.5gb + 1x 2g.10gb + 1x 3g.20gb (MIG user guide; GPU Operator default-mig-parted-config).
Standard_ND96asr_v4 and p4d.24xlarge carry 8 of them; g5.12xlarge carries 4 A10G. The device plugin
README defines the names: ``single`` -> ``nvidia.com/gpu``, ``mixed`` -> ``nvidia.com/mig-<profile>``,
time-slicing multiplies by replicas and ``renameByDefault`` appends ``.shared``.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupools.domain.capacity import stack_capacity
from gpupools.catalog import INSTANCE_SIZES, sizes_for
from gpupools.config import ConfigError, read_stack_file
from gpupools.domain.stack import Stack
from gpupools.resolve.stack_loader import load_stack
from support.base_configs import PINNED_AWS, PINNED_AZURE

REPO_ROOT = Path(__file__).resolve().parents[2]

AZURE: dict[str, Any] = PINNED_AZURE
AWS: dict[str, Any] = PINNED_AWS
# Kubernetes extended resource names: a DNS subdomain prefix and a qualified name of at most 63 characters.
RESOURCE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


def capacity(config: dict) -> list:
    stack = load_stack(config)
    return stack_capacity(stack.pools)


def single_pool(config: dict):
    (pool_capacity,) = capacity(config)
    return pool_capacity


def with_changes(base: dict, software: dict | None = None, **pool: Any) -> dict:
    config = copy.deepcopy(base)
    config["gpupools:gpuSoftware"].update(software or {})
    for key, value in pool.items():
        if value is None:
            config["gpupools:gpuPools"][0].pop(key, None)
        else:
            config["gpupools:gpuPools"][0][key] = value
    return config


# --------------------------------------------------------------------------------------------------
# Published figures
# --------------------------------------------------------------------------------------------------


def test_nd96asr_v4_mig1g_single_gives_56_gpus():
    cap = single_pool(AZURE)
    assert (cap.size, cap.gpu, cap.nodes, cap.gpus_per_node) == ("Standard_ND96asr_v4", "A100-40GB", 1, 8)
    assert cap.per_node == {"nvidia.com/gpu": 56}
    assert cap.total == {"nvidia.com/gpu": 56}


def test_nd96asr_v4_mig1g_mixed_gives_56_mig_1g_5gb():
    cap = single_pool(with_changes(AZURE, {"migStrategy": "mixed"}))
    assert cap.total == {"nvidia.com/mig-1g.5gb": 56}


def test_p4d_all_balanced_mixed():
    cap = single_pool(AWS)
    assert cap.per_node == {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8}
    assert cap.total == cap.per_node


@pytest.mark.parametrize(
    "layout, resource, count",
    [
        ("all-1g.5gb", "nvidia.com/mig-1g.5gb", 56),
        ("all-2g.10gb", "nvidia.com/mig-2g.10gb", 24),
        ("all-3g.20gb", "nvidia.com/mig-3g.20gb", 16),
        ("all-4g.20gb", "nvidia.com/mig-4g.20gb", 8),
        ("all-7g.40gb", "nvidia.com/mig-7g.40gb", 8),
        ("all-1g.10gb", "nvidia.com/mig-1g.10gb", 32),
    ],
)
def test_p4d_all_profile_layouts(layout, resource, count):
    assert single_pool(with_changes(AWS, mig={"layout": layout})).total == {resource: count}


@pytest.mark.parametrize(
    "size, gpu_profile, per_gpu_resource, count",
    [
        ("Standard_ND96amsr_A100_v4", "MIG1g", "nvidia.com/mig-1g.10gb", 56),
        ("Standard_ND96isr_H100_v5", "MIG1g", "nvidia.com/mig-1g.10gb", 56),
        ("Standard_NC40ads_H100_v5", "MIG1g", "nvidia.com/mig-1g.12gb", 7),
        ("Standard_NC80adis_H100_v5", "MIG7g", "nvidia.com/mig-7g.94gb", 2),
        ("Standard_NC96ads_A100_v4", "MIG2g", "nvidia.com/mig-2g.20gb", 12),
        ("Standard_NC24ads_A100_v4", "MIG3g", "nvidia.com/mig-3g.40gb", 2),
    ],
)
def test_aks_mig_profiles_on_other_sizes(size, gpu_profile, per_gpu_resource, count):
    config = with_changes(AZURE, {"migStrategy": "mixed"}, size=size, mig={"profile": gpu_profile})
    assert single_pool(config).total == {per_gpu_resource: count}


@pytest.mark.parametrize(
    "base, size, gpus",
    [
        (AZURE, "Standard_NC24ads_A100_v4", 1),
        (AZURE, "Standard_ND96asr_v4", 8),
        (AZURE, "Standard_NC64as_T4_v3", 4),
        (AWS, "p4d.24xlarge", 8),
        (AWS, "g5.12xlarge", 4),
        (AWS, "g6.48xlarge", 8),
    ],
)
def test_none_strategy_without_mig_gives_physical_gpus(base, size, gpus):
    config = with_changes(base, {"migStrategy": "none"}, size=size, mig=None, count=1)
    cap = single_pool(config)
    assert cap.per_node == {"nvidia.com/gpu": gpus}


def test_whole_gpus_under_mixed_strategy_are_nvidia_com_gpu():
    # A pool without MIG advertises nvidia.com/gpu whatever the strategy.
    config = with_changes(AWS, size="g5.12xlarge", mig=None)
    assert single_pool(config).per_node == {"nvidia.com/gpu": 4}


@pytest.mark.parametrize("count", [0, 1, 2, 3, 10])
def test_totals_scale_with_count(count):
    cap = single_pool(with_changes(AZURE, count=count))
    assert cap.nodes == count
    assert cap.per_node == {"nvidia.com/gpu": 56}
    assert cap.total == {"nvidia.com/gpu": 56 * count}


def test_p4d_all_balanced_three_nodes():
    cap = single_pool(with_changes(AWS, count=3))
    assert cap.total == {"nvidia.com/mig-1g.5gb": 48, "nvidia.com/mig-2g.10gb": 24, "nvidia.com/mig-3g.20gb": 24}


def test_time_slicing_on_g5_12xlarge():
    config = with_changes(
        AWS,
        {"installer": "device-plugin", "version": "0.20.0", "migStrategy": "none"},
        size="g5.12xlarge",
        mig=None,
        sharing={"timeSlicing": {"replicas": 4}},
    )
    assert single_pool(config).per_node == {"nvidia.com/gpu": 16}


def test_time_slicing_rename_by_default():
    config = with_changes(
        AWS,
        {"installer": "device-plugin", "version": "0.20.0", "migStrategy": "none"},
        size="g5.12xlarge",
        mig=None,
        sharing={"timeSlicing": {"replicas": 4, "renameByDefault": True}},
    )
    cap = single_pool(config)
    assert cap.per_node == {"nvidia.com/gpu.shared": 16}
    assert "nvidia.com/gpu" not in cap.per_node


def test_time_slicing_of_mig_devices_under_mixed():
    config = with_changes(AWS, sharing={"timeSlicing": {"replicas": 2}}, count=2)
    cap = single_pool(config)
    assert cap.per_node == {"nvidia.com/mig-1g.5gb": 32, "nvidia.com/mig-2g.10gb": 16, "nvidia.com/mig-3g.20gb": 16}
    assert cap.total == {"nvidia.com/mig-1g.5gb": 64, "nvidia.com/mig-2g.10gb": 32, "nvidia.com/mig-3g.20gb": 32}


def test_existing_stack_file_two_pools():
    path = REPO_ROOT / "Pulumi.existing.yaml"
    if not path.is_file():
        pytest.skip("Pulumi.existing.yaml not present")
    caps = {cap.pool: cap.total for cap in capacity(read_stack_file(path).config)}
    assert caps == {"mig1g": {"nvidia.com/mig-1g.5gb": 56}, "mig3g": {"nvidia.com/mig-3g.20gb": 16}}


def test_to_json_shape():
    data = single_pool(with_changes(AWS, count=2)).to_json()
    assert data == {
        "pool": "p4d",
        "size": "p4d.24xlarge",
        "gpu": "A100-40GB",
        "nodes": 2,
        "gpusPerNode": 8,
        "perNode": {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8},
        "total": {"nvidia.com/mig-1g.5gb": 32, "nvidia.com/mig-2g.10gb": 16, "nvidia.com/mig-3g.20gb": 16},
        # EKS sets max pods itself (from the instance's ENIs): no cap; the operator's daemonsets that land there.
        "advertisedPerNode": {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8},
        "maxPods": None,
        "daemonsetPods": 6,
    }


# --------------------------------------------------------------------------------------------------
# Property: valid pools advertise nodes x GPUs x instances per GPU
# --------------------------------------------------------------------------------------------------

MIG_SIZES = {cloud: [n for n in sizes_for(cloud) if INSTANCE_SIZES[n].gpu.mig_capable] for cloud in ("azure", "aws")}
# The number of cases is tests/conftest.py's profile: 150 in the whole suite, fewer in `-m pure`.
FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def instances_per_gpu(gpu, devices: dict[str, int]) -> int:
    return sum(devices.values())


def slice_rule_maximum(gpu, profile) -> int:
    """MIG user guide: +me profiles are one per GPU; otherwise as many as the compute and memory slices allow."""
    if "+me" in profile.name:
        return 1
    return min(gpu.compute_slices // profile.compute_slices, gpu.memory_slices // profile.memory_slices)


@st.composite
def valid_mig_pool(draw):
    cloud = draw(st.sampled_from(["azure", "aws"]))
    size_name = draw(st.sampled_from(MIG_SIZES[cloud]))
    gpu = INSTANCE_SIZES[size_name].gpu
    count = draw(st.integers(min_value=0, max_value=50))
    kind = draw(st.sampled_from(["profile", "aks-profile", "layout"]))
    if kind == "profile":
        profile = draw(st.sampled_from(gpu.profiles))
        mig, per_gpu = {"profile": profile.name}, {profile.name: slice_rule_maximum(gpu, profile)}
    elif kind == "aks-profile":
        slices = draw(st.sampled_from([1, 2, 3, 4, 7]))
        profile = gpu.profile_for_slices(slices)
        mig, per_gpu = {"profile": f"MIG{slices}g"}, {profile.name: slice_rule_maximum(gpu, profile)}
    else:
        layout = draw(st.sampled_from(sorted(gpu.layouts)))
        if layout == "all-balanced":
            one, two, three = (gpu.profile_for_slices(n) for n in (1, 2, 3))
            per_gpu = {one.name: 2, two.name: 1, three.name: 1}  # NVIDIA's balanced layout for 7-slice GPUs
        else:
            profile = next(p for p in gpu.profiles if f"all-{p.name.replace('+', '.')}" == layout)
            per_gpu = {profile.name: slice_rule_maximum(gpu, profile)}
        mig = {"layout": layout}
    software = {"installer": "gpu-operator", "version": "v26.7.0", "migStrategy": "mixed"}
    if cloud == "azure":
        software["driver"] = "operator"
    base = copy.deepcopy(AZURE if cloud == "azure" else AWS)
    base["gpupools:gpuSoftware"] = software
    base["gpupools:gpuPools"] = [{"name": "pool1", "size": size_name, "count": count, "mig": mig}]
    return base, INSTANCE_SIZES[size_name].gpus, per_gpu


@FAST
@given(valid_mig_pool(), st.one_of(st.none(), st.tuples(st.integers(2, 8), st.booleans())))
def test_property_total_is_nodes_times_gpus_times_instances(case, sharing):
    config, gpus, per_gpu = case
    replicas, rename = sharing or (1, False)
    if sharing:
        config["gpupools:gpuPools"][0]["sharing"] = {"timeSlicing": {"replicas": replicas, "renameByDefault": rename}}
    count = config["gpupools:gpuPools"][0]["count"]
    cap = single_pool(config)
    assert cap.nodes == count and cap.gpus_per_node == gpus
    advertised = gpus * sum(per_gpu.values()) * replicas
    assert sum(cap.advertised.values()) == advertised
    # Usable slices: all advertised ones unless AKS's maxPods (at most 250 pods, daemonsets included) is shorter.
    room = None if cap.max_pods is None else cap.max_pods - cap.daemonset_pods
    assert sum(cap.per_node.values()) == (advertised if room is None else min(advertised, room))
    assert sum(cap.total.values()) == count * sum(cap.per_node.values())
    suffix = ".shared" if rename else ""
    expected_names = {f"nvidia.com/mig-{name.replace('+', '.')}{suffix}" for name in per_gpu}
    assert set(cap.advertised) == expected_names
    for name, per_node in cap.per_node.items():
        assert RESOURCE_NAME.match(name), name
        assert cap.total[name] == per_node * count


@FAST
@given(valid_mig_pool())
def test_property_single_strategy_counts_every_mig_device_as_a_gpu(case):
    config, gpus, per_gpu = case
    if len(per_gpu) != 1:
        return  # single cannot advertise a mix; covered by validation tests
    config["gpupools:gpuSoftware"]["migStrategy"] = "single"
    cap = single_pool(config)
    count = config["gpupools:gpuPools"][0]["count"]
    assert cap.total == {"nvidia.com/gpu": count * gpus * sum(per_gpu.values())}


# --------------------------------------------------------------------------------------------------
# Property: invalid configs raise ConfigError, never another exception
# --------------------------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
garbage = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
# Keys that cannot be a field name: every real key is a camelCase word.
unknown_keys = st.text(min_size=1, max_size=10).map(lambda s: f"x-{s}")


def containers(node: Any, path: tuple = ()) -> list[tuple]:
    """Paths of every dict in the config (where an unknown key can go)."""
    found = [path] if isinstance(node, dict) else []
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, child in children:
        found += containers(child, path + (key,))
    return found


def leaves_and_nodes(node: Any, path: tuple = ()) -> list[tuple]:
    """Paths of every value below the top level."""
    found = [path] if path else []
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, child in children:
        found += leaves_and_nodes(child, path + (key,))
    return found


def get(node: Any, path: tuple) -> Any:
    for key in path:
        node = node[key]
    return node


def assert_config_error_or_stack(config: Any, must_fail: bool) -> None:
    try:
        result = load_stack(config)
    except ConfigError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.field.startswith("gpupools:")
        return
    assert not must_fail, "invalid config was accepted"
    assert isinstance(result, Stack)


def base_config(draw) -> dict:
    return copy.deepcopy(draw(st.sampled_from([AZURE, AWS])))


@FAST
@given(st.data())
def test_property_unknown_key_anywhere_is_refused(data):
    config = base_config(data.draw)
    path = data.draw(st.sampled_from(containers(config)))
    key = data.draw(unknown_keys)
    if not path:
        key = f"gpupools:{key}"
    get(config, path)[key] = data.draw(garbage)
    with pytest.raises(ConfigError) as caught:
        load_stack(config)
    assert any(p.message.startswith("unknown key") for p in caught.value.problems)


ENUM_PATHS = {
    ("gpupools:cloud",): ("azure", "aws"),
    ("gpupools:gpuSoftware", "installer"): ("device-plugin", "gpu-operator"),
    ("gpupools:gpuSoftware", "migStrategy"): ("none", "single", "mixed"),
    ("gpupools:gpuSoftware", "driver"): ("preinstalled", "operator"),
    ("gpupools:gpuPools", 0, "osSku"): ("Ubuntu", "Ubuntu2204", "Ubuntu2404", "AzureLinux"),
    ("gpupools:gpuPools", 0, "size"): tuple(INSTANCE_SIZES),
    ("gpupools:gpuPools", 0, "mig", "profile"): (),  # any random string that is not a profile of the GPU
    ("gpupools:gpuPools", 0, "mig", "layout"): (),
}


@FAST
@given(st.data())
def test_property_random_strings_for_enums_sizes_profiles_are_refused(data):
    config = base_config(data.draw)
    path = data.draw(st.sampled_from(sorted(ENUM_PATHS, key=str)))
    allowed = set(ENUM_PATHS[path])
    value = data.draw(
        st.text(max_size=20).filter(
            lambda s: (
                s not in allowed
                and not re.fullmatch(r"MIG[12347]g", s)
                and not re.fullmatch(r"\d+g\.\d+gb(\+me)?|all-.*", s)
            )
        )
    )
    parent = get(config, path[:-1])
    if path[-1] in ("profile", "layout"):
        parent.pop("profile", None), parent.pop("layout", None)
    parent[path[-1]] = value
    with pytest.raises(ConfigError):
        load_stack(config)


WRONG_TYPE_PATHS = [
    ("gpupools:cloud",),
    ("gpupools:cluster",),
    ("gpupools:cluster", "name"),
    ("gpupools:cluster", "systemPool"),
    ("gpupools:cluster", "systemPool", "size"),
    ("gpupools:gpuPools", 0),
    ("gpupools:gpuPools", 0, "name"),
    ("gpupools:gpuPools", 0, "size"),
    ("gpupools:gpuPools", 0, "count"),
    ("gpupools:gpuPools", 0, "mig"),
    ("gpupools:gpuSoftware",),
    ("gpupools:gpuSoftware", "installer"),
    ("gpupools:gpuSoftware", "migStrategy"),
]


@FAST
@given(st.data())
def test_property_wrong_types_are_refused(data):
    config = base_config(data.draw)
    path = data.draw(st.sampled_from(WRONG_TYPE_PATHS))
    # None of these fields is a list; gpuPools is the only list and gets a non-list.
    get(config, path[:-1])[path[-1]] = data.draw(st.lists(garbage, max_size=3))
    if data.draw(st.booleans()):
        config["gpupools:gpuPools"] = data.draw(
            st.one_of(scalars, st.dictionaries(st.text(max_size=5), garbage, max_size=3))
        )
    with pytest.raises(ConfigError):
        load_stack(config)


@FAST
@given(st.data())
def test_property_any_value_replaced_by_garbage_never_crashes(data):
    config = base_config(data.draw)
    paths = leaves_and_nodes(config)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        try:
            parent = get(config, path[:-1])
            parent[path[-1]] = data.draw(garbage)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier replacement removed this path
    assert_config_error_or_stack(config, must_fail=False)


@FAST
@given(
    st.dictionaries(
        st.one_of(
            st.sampled_from(
                [
                    "gpupools:cloud",
                    "gpupools:cluster",
                    "gpupools:gpuPools",
                    "gpupools:customSizes",
                    "gpupools:tags",
                    "cloud",
                    "azure-native:location",
                ]
            ),
            st.text(max_size=15),
        ),
        garbage,
        max_size=6,
    )
)
def test_property_random_nested_garbage_is_a_config_error(raw):
    # Without gpuSoftware (never generated) no config is valid.
    raw.pop("gpupools:gpuSoftware", None), raw.pop("gpuSoftware", None)
    assert_config_error_or_stack(raw, must_fail=True)


@FAST
@given(garbage)
def test_property_non_mapping_or_garbage_top_level(raw):
    assert_config_error_or_stack(raw, must_fail=True)
