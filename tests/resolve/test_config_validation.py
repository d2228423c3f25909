"""Stack config validation: one test per rule, each checking the exact field path and a useful message.

Configs are written as the Pulumi CLI hands them to the program: top-level keys ``gpupools:<name>``.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import pytest

from gpupools.config import ConfigError, Problem
from gpupools.resolve.stack_loader import load_stack


@pytest.fixture
def azure() -> dict[str, Any]:
    """AKS, one Standard_ND96asr_v4 (8x A100 40GB) node cut by AKS into MIG1g, device plugin, single strategy."""
    return {
        "gpupools:cloud": "azure",
        "gpupools:cluster": {
            "name": "gpu-dev",
            "resourceGroup": "gpu-dev-rg",
            "location": "southcentralus",
            "systemPool": {"size": "Standard_D4s_v5", "count": 2},
        },
        "gpupools:gpuPools": [
            {"name": "mig1g", "size": "Standard_ND96asr_v4", "count": 1, "mig": {"profile": "MIG1g"}},
        ],
        "gpupools:gpuSoftware": {"installer": "device-plugin", "version": "0.20.0", "migStrategy": "single"},
    }


@pytest.fixture
def aws() -> dict[str, Any]:
    """EKS, one p4d.24xlarge laid out all-balanced by the GPU Operator, mixed strategy."""
    return {
        "gpupools:cloud": "aws",
        "gpupools:cluster": {"name": "gpu-eks", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
        "gpupools:gpuPools": [
            {"name": "p4d-balanced", "size": "p4d.24xlarge", "count": 1, "mig": {"layout": "all-balanced"}},
        ],
        "gpupools:gpuSoftware": {"installer": "gpu-operator", "version": "v26.7.0", "migStrategy": "mixed"},
    }


def pool(config: dict, index: int = 0) -> dict:
    return config["gpupools:gpuPools"][index]


def software(config: dict) -> dict:
    return config["gpupools:gpuSoftware"]


def cluster(config: dict) -> dict:
    return config["gpupools:cluster"]


def operator_managed(config: dict) -> dict:
    """AKS with the GPU Operator installing the driver: MIG layouts applied by its MIG manager."""
    software(config).update(installer="gpu-operator", version="v26.7.0", driver="operator", migStrategy="mixed")
    return config


def problems_of(config: dict) -> list[Problem]:
    with pytest.raises(ConfigError) as caught:
        load_stack(config)
    error = caught.value
    assert error.problems, "ConfigError without problems"
    return error.problems


def problem_at(config: dict, field: str, *mentions: str) -> Problem:
    """The config fails with a problem at exactly ``field`` whose message mentions every string in ``mentions``."""
    problems = problems_of(config)
    at_field = [p for p in problems if p.field == field]
    assert at_field, f"no problem at {field}; got {[(p.field, p.message) for p in problems]}"
    for text in mentions:
        assert any(text in p.message for p in at_field), f"{field}: {text!r} not in {[p.message for p in at_field]}"
    return at_field[0]


# --------------------------------------------------------------------------------------------------
# The fixtures are valid
# --------------------------------------------------------------------------------------------------


def test_minimal_azure_config_is_valid(azure):
    stack = load_stack(azure)
    assert stack.cloud == "azure"
    assert [p.name for p in stack.pools] == ["mig1g"]
    (resolved,) = stack.pools
    assert resolved.mig.devices == {"1g.5gb": 7}
    assert resolved.mig.applied_by == "aks"
    assert resolved.mig.aks_profile == "MIG1g"


def test_minimal_aws_config_is_valid(aws):
    stack = load_stack(aws)
    assert stack.cloud == "aws"
    (resolved,) = stack.pools
    assert resolved.mig.devices == {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}
    assert resolved.mig.applied_by == "operator"
    assert resolved.mig.layout_name == "all-balanced"


def test_keys_without_namespace_are_accepted(azure):
    bare = {key.removeprefix("gpupools:"): value for key, value in azure.items()}
    assert load_stack(bare).cloud == "azure"


def test_other_namespaces_are_ignored(azure):
    azure["azure-native:location"] = "southcentralus"
    azure["aws:region"] = {"anything": ["goes"]}
    azure["kubernetes:context"] = 42
    assert load_stack(azure).cloud == "azure"


def test_config_does_not_change_input(azure):
    before = copy.deepcopy(azure)
    load_stack(azure)
    assert azure == before


# --------------------------------------------------------------------------------------------------
# Unknown keys, at every level: they must fail, never be ignored
# --------------------------------------------------------------------------------------------------

UNKNOWN_KEY_CASES: list[tuple[str, Callable[[dict], Any], str, str]] = [
    ("top", lambda c: c.update({"gpupools:gpuPool": []}), "gpupools:gpuPool", "gpuPools"),
    (
        "gpuSoftware",
        lambda c: software(c).update(mixedStrategy=True),
        "gpupools:gpuSoftware.mixedStrategy",
        "migStrategy",
    ),
    ("cluster", lambda c: cluster(c).update(resourcegroup="x"), "gpupools:cluster.resourcegroup", "resourceGroup"),
    ("systemPool", lambda c: cluster(c)["systemPool"].update(vmSize="x"), "gpupools:cluster.systemPool.vmSize", "size"),
    ("pool", lambda c: pool(c).update(vmSize="x"), "gpupools:gpuPools[0].vmSize", "size"),
    ("mig", lambda c: pool(c)["mig"].update(profiles="MIG1g"), "gpupools:gpuPools[0].mig.profiles", "profile"),
    (
        "autoscaling",
        lambda c: pool(c).update(count=1, autoscaling={"minCount": 1, "maxCount": 2, "max": 3}),
        "gpupools:gpuPools[0].autoscaling.max",
        "maxCount",
    ),
    (
        "sharing",
        lambda c: (pool(c).pop("mig"), pool(c).update(sharing={"timeSlicing": {"replicas": 2}, "mig": 1})),
        "gpupools:gpuPools[0].sharing.mig",
        "timeSlicing",
    ),
    (
        "timeSlicing",
        lambda c: (pool(c).pop("mig"), pool(c).update(sharing={"timeSlicing": {"replicas": 2, "rename": True}})),
        "gpupools:gpuPools[0].sharing.timeSlicing.rename",
        "renameByDefault",
    ),
    (
        "customSizes entry",
        lambda c: c.update({"gpupools:customSizes": {"Standard_X": {"gpu": "V100-16GB", "gpus": 1, "count": 1}}}),
        "gpupools:customSizes.Standard_X.count",
        "gpus",
    ),
]


@pytest.mark.parametrize("level, mutate, field, allowed", UNKNOWN_KEY_CASES, ids=[c[0] for c in UNKNOWN_KEY_CASES])
def test_unknown_key_is_an_error(azure, level, mutate, field, allowed):
    mutate(azure)
    key = field.rsplit(".", 1)[-1].removeprefix("gpupools:")
    problem_at(azure, field, key, allowed)


@pytest.mark.parametrize("key", ["str", "float", "gpuPools[0]"])
def test_unknown_top_level_key_spelled_like_a_type_or_index(azure, key):
    """YAML keys are free text; a key such as ``gpupools:gpuPools[0]`` must be reported, not crash."""
    azure[f"gpupools:{key}"] = 1
    problem_at(azure, f"gpupools:{key}", key)


def test_unknown_nested_key_spelled_like_a_type(azure):
    cluster(azure)["int"] = 1
    problem_at(azure, "gpupools:cluster.int", "'int'", "resourceGroup")


def test_unknown_key_on_aws(aws):
    software(aws)["mixedStrategy"] = True
    problem_at(aws, "gpupools:gpuSoftware.mixedStrategy", "mixedStrategy", "migStrategy")


# --------------------------------------------------------------------------------------------------
# MIG profiles and layouts against the GPU
# --------------------------------------------------------------------------------------------------


def test_profile_of_the_80gb_gpu_on_a100_40gb(azure):
    pool(azure)["mig"] = {"profile": "2g.20gb"}
    problem_at(azure, "gpupools:gpuPools[0].mig.profile", "2g.20gb", "A100-40GB", "2g.10gb")


def test_1g_10gb_is_a_real_a100_40gb_profile(azure):
    # 1g.10gb exists on A100 40GB (max 4), so the GPU Operator can apply it.
    operator_managed(azure)
    pool(azure)["mig"] = {"profile": "1g.10gb"}
    (resolved,) = load_stack(azure).pools
    assert resolved.mig.devices == {"1g.10gb": 4}
    assert resolved.mig.layout_name == "all-1g.10gb"


def test_unknown_named_layout(aws):
    pool(aws)["mig"] = {"layout": "all-2g.20gb"}
    problem_at(aws, "gpupools:gpuPools[0].mig.layout", "all-2g.20gb", "all-balanced")


def test_aks_profile_name_that_does_not_exist(azure):
    pool(azure)["mig"] = {"profile": "MIG5g"}
    problem_at(azure, "gpupools:gpuPools[0].mig.profile", "MIG5g", "MIG1g")


@pytest.mark.parametrize("size", ["Standard_NC4as_T4_v3", "Standard_NC6s_v3"])
def test_mig_on_non_mig_gpu_azure(azure, size):
    pool(azure)["size"] = size
    problem_at(azure, "gpupools:gpuPools[0].mig.profile", size, "MIG")


@pytest.mark.parametrize("size", ["g5.xlarge", "g6.xlarge", "g6e.xlarge"])
def test_mig_on_non_mig_gpu_aws(aws, size):
    pool(aws)["size"] = size
    problem_at(aws, "gpupools:gpuPools[0].mig.layout", size, "MIG")


LAYOUT = "gpupools:gpuPools[0].mig.layout"


def test_layout_exceeding_compute_slices(aws):
    # 4g + 3g + 1g = 8 compute slices > 7
    pool(aws)["mig"] = {"layout": {"4g.20gb": 1, "3g.20gb": 1, "1g.5gb": 1}}
    problem_at(aws, LAYOUT, "compute slices", "8", "7")


def test_layout_exceeding_memory_slices_only(aws):
    # 7 compute slices fit, but 1g.10gb x3 (6 memory slices) + 1g.5gb x3 (3) = 9 memory slices > 8
    pool(aws)["mig"] = {"layout": {"1g.10gb": 3, "1g.5gb": 3}}
    problem = problem_at(aws, LAYOUT, "memory slices", "9", "8")
    assert not any("compute" in p.message for p in problems_of(aws))
    assert problem


def test_layout_exceeding_max_instances(aws):
    pool(aws)["mig"] = {"layout": {"1g.5gb": 8}}
    problem_at(aws, LAYOUT, "8x 1g.5gb", "7")


def test_layout_with_two_media_extension_instances(azure):
    # A30 has two +me profiles; one GPU holds at most one +me instance.
    operator_managed(azure)
    azure["gpupools:customSizes"] = {"Standard_A30_test": {"gpu": "A30-24GB", "gpus": 1}}
    pool(azure).update(size="Standard_A30_test", mig={"layout": {"1g.6gb+me": 1, "2g.12gb+me": 1}})
    problem_at(azure, LAYOUT, "+me")


def test_layout_that_fits(aws):
    pool(aws)["mig"] = {"layout": {"4g.20gb": 1, "3g.20gb": 1}}
    (resolved,) = load_stack(aws).pools
    assert resolved.mig.devices == {"4g.20gb": 1, "3g.20gb": 1}
    assert resolved.mig.custom


def test_layout_count_below_one(aws):
    pool(aws)["mig"] = {"layout": {"1g.5gb": 0}}
    problem_at(aws, LAYOUT, "1g.5gb: 0")


def test_mig_with_profile_and_layout(aws):
    pool(aws)["mig"] = {"profile": "1g.5gb", "layout": "all-balanced"}
    problem_at(aws, "gpupools:gpuPools[0].mig", "profile", "layout")


# --------------------------------------------------------------------------------------------------
# MIG strategy, AKS MIG restrictions
# --------------------------------------------------------------------------------------------------


def test_single_strategy_with_mixed_profiles(aws):
    software(aws)["migStrategy"] = "single"
    problem_at(aws, LAYOUT, "single", "mixed")


def test_none_strategy_with_mig(azure):
    software(azure)["migStrategy"] = "none"
    problem_at(azure, "gpupools:gpuSoftware.migStrategy", "none", "mig1g")


def test_aks_pool_with_more_than_one_profile(azure):
    software(azure)["migStrategy"] = "mixed"
    pool(azure)["mig"] = {"layout": "all-balanced"}
    problem_at(azure, LAYOUT, "AKS", "gpu-operator")


def test_aks_pool_with_more_than_one_profile_and_preinstalled_driver(azure):
    # The GPU Operator without operator-managed drivers is still stuck with AKS's one-profile MIG.
    software(azure).update(installer="gpu-operator", version="v26.7.0", migStrategy="mixed")
    pool(azure)["mig"] = {"layout": {"3g.20gb": 1, "4g.20gb": 1}}
    problem_at(azure, LAYOUT, "AKS", "driver")


def test_aks_pool_with_more_than_one_profile_and_operator_driver_is_fine(azure):
    operator_managed(azure)
    pool(azure)["mig"] = {"layout": "all-balanced"}
    (resolved,) = load_stack(azure).pools
    assert resolved.mig.applied_by == "operator"


def test_aks_partial_gpu_profile_is_refused(azure):
    # AKS cuts every GPU fully: 1g.5gb+me (one instance per GPU) is not something MIG1g creates.
    software(azure)["migStrategy"] = "mixed"
    pool(azure)["mig"] = {"profile": "1g.5gb+me"}
    problem_at(azure, "gpupools:gpuPools[0].mig.profile", "AKS")


def test_aks_mig_pool_on_azure_linux(azure):
    pool(azure)["osSku"] = "AzureLinux"
    problem_at(azure, "gpupools:gpuPools[0].osSku", "AzureLinux", "Ubuntu")


def test_aks_mig_pool_autoscales_from_one_node_but_not_from_zero(azure):
    """AKS accepts the autoscaler on MIG pools; its template knows only nvidia.com/gpu, so MIG slices under the mixed
    strategy cannot start from zero (Azure/AKS#5161)."""
    pool(azure)["autoscaling"] = {"minCount": 1, "maxCount": 3}
    assert load_stack(azure).pools[0].config.autoscaling.max_count == 3
    pool(azure)["autoscaling"] = {"minCount": 0, "maxCount": 3}
    pool(azure)["count"] = 0
    azure["gpupools:gpuSoftware"]["migStrategy"] = "mixed"
    problem_at(azure, "gpupools:gpuPools[0].autoscaling.minCount", "Azure/AKS#5161", "allowed: 1..3")


def test_eks_pool_with_autoscaling_is_fine(aws):
    pool(aws)["autoscaling"] = {"minCount": 0, "maxCount": 3}
    assert load_stack(aws).pools


def test_count_outside_autoscaling_bounds(aws):
    pool(aws).update(count=5, autoscaling={"minCount": 0, "maxCount": 3})
    problem_at(aws, "gpupools:gpuPools[0].count", "5", "0..3")


def test_eks_mig_with_device_plugin(aws):
    software(aws).update(installer="device-plugin", version="0.20.0")
    problem_at(aws, "gpupools:gpuPools[0].mig", "gpu-operator")


# --------------------------------------------------------------------------------------------------
# Enumerations
# --------------------------------------------------------------------------------------------------


def test_unknown_cloud(azure):
    azure["gpupools:cloud"] = "gcp"
    problem_at(azure, "gpupools:cloud", "gcp", "azure", "aws")


def test_unknown_installer(azure):
    software(azure)["installer"] = "helm"
    problem_at(azure, "gpupools:gpuSoftware.installer", "helm", "device-plugin", "gpu-operator")


def test_unknown_strategy(azure):
    software(azure)["migStrategy"] = "both"
    problem_at(azure, "gpupools:gpuSoftware.migStrategy", "both", "none", "single", "mixed")


def test_missing_installer(azure):
    del software(azure)["installer"]
    problem_at(azure, "gpupools:gpuSoftware.installer", "required")


# --------------------------------------------------------------------------------------------------
# Sizes and counts
# --------------------------------------------------------------------------------------------------


def test_aws_size_on_azure(azure):
    pool(azure)["size"] = "p4d.24xlarge"
    problem_at(azure, "gpupools:gpuPools[0].size", "p4d.24xlarge", "aws", "azure")


def test_azure_size_on_aws(aws):
    pool(aws)["size"] = "Standard_ND96asr_v4"
    problem_at(aws, "gpupools:gpuPools[0].size", "Standard_ND96asr_v4", "azure", "aws")


def test_system_pool_of_the_other_cloud(aws):
    cluster(aws)["systemPool"]["size"] = "Standard_D4s_v5"
    problem_at(aws, "gpupools:cluster.systemPool.size", "Standard_D4s_v5")


def test_unknown_size(azure):
    pool(azure)["size"] = "Standard_ND96xyz_v9"
    problem_at(azure, "gpupools:gpuPools[0].size", "Standard_ND96xyz_v9", "Standard_ND96asr_v4", "customSizes")


def test_unknown_aws_size(aws):
    pool(aws)["size"] = "p9.48xlarge"
    problem_at(aws, "gpupools:gpuPools[0].size", "p9.48xlarge", "p4d.24xlarge")


def test_negative_count(azure):
    pool(azure)["count"] = -1
    problem_at(azure, "gpupools:gpuPools[0].count", "-1", "0")


def test_absurd_count(azure):
    pool(azure)["count"] = 100000
    problem_at(azure, "gpupools:gpuPools[0].count", "100000")


def test_count_of_wrong_type(azure):
    pool(azure)["count"] = "many"
    problem_at(azure, "gpupools:gpuPools[0].count", "many")


def test_count_zero_is_a_warning_not_an_error(aws):
    pool(aws)["count"] = 0
    stack = load_stack(aws)
    assert any("p4d-balanced" in warning for warning in stack.warnings)


def test_no_pools(azure):
    azure["gpupools:gpuPools"] = []
    problem_at(azure, "gpupools:gpuPools")


# --------------------------------------------------------------------------------------------------
# Pool names
# --------------------------------------------------------------------------------------------------


def test_duplicate_pool_names(azure):
    azure["gpupools:gpuPools"].append(copy.deepcopy(pool(azure)))
    problem = problem_at(azure, "gpupools:gpuPools[1].name", "mig1g")
    assert "gpuPools[0]" in problem.message


@pytest.mark.parametrize(
    "name, why",
    [
        ("Mig1g", "uppercase"),
        ("abcdefghijklm", "13 characters"),
        ("1pool", "starts with a digit"),
        ("mig-1g", "hyphen"),
        ("system", "reserved"),
    ],
)
def test_invalid_aks_pool_name(azure, name, why):
    pool(azure)["name"] = name
    problem_at(azure, "gpupools:gpuPools[0].name", name)


def test_twelve_character_aks_pool_name_is_fine(azure):
    pool(azure)["name"] = "abcdefghijkl"
    assert load_stack(azure).pools[0].name == "abcdefghijkl"


def test_eks_pool_names_must_also_name_kubernetes_objects(aws):
    # EKS accepts P4d_Balanced-1, but the pool name also becomes a Job (<pool>-smoke) and label values: DNS-1123 only.
    pool(aws)["name"] = "p4d-balanced-1"
    assert load_stack(aws).pools[0].name == "p4d-balanced-1"
    for bad in ("P4d_Balanced-1", "bad name", "x" * 55, "-p4d", "p4d\n"):
        pool(aws)["name"] = bad
        problem_at(aws, "gpupools:gpuPools[0].name")


# --------------------------------------------------------------------------------------------------
# Chart versions and software combinations
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["latest", ">=0.17", "v0.20.0", "0.20"])
def test_unpinned_device_plugin_version(azure, version):
    software(azure)["version"] = version
    problem_at(azure, "gpupools:gpuSoftware.version", version, "0.20.0")


@pytest.mark.parametrize("version", ["26.7.0", "latest", "v26.7"])
def test_gpu_operator_version_needs_v_prefix(aws, version):
    software(aws)["version"] = version
    problem_at(aws, "gpupools:gpuSoftware.version", version, "v26.7.0")


def test_operator_driver_with_device_plugin(azure):
    software(azure)["driver"] = "operator"
    problem_at(azure, "gpupools:gpuSoftware.driver", "operator", "gpu-operator")


def test_namespace_default_is_refused(azure):
    software(azure)["namespace"] = "default"
    problem_at(azure, "gpupools:gpuSoftware.namespace", "default")


# --------------------------------------------------------------------------------------------------
# Cluster
# --------------------------------------------------------------------------------------------------


def test_aws_without_region(aws):
    del cluster(aws)["region"]
    problem_at(aws, "gpupools:cluster.region", "aws")


def test_azure_without_resource_group(azure):
    del cluster(azure)["resourceGroup"]
    problem_at(azure, "gpupools:cluster.resourceGroup", "azure")


def test_azure_create_without_location(azure):
    del cluster(azure)["location"]
    problem_at(azure, "gpupools:cluster.location")


def test_existing_azure_cluster_needs_no_location_or_system_pool(azure):
    cluster(azure).update(create=False)
    del cluster(azure)["location"], cluster(azure)["systemPool"]
    assert load_stack(azure).cloud == "azure"


# --------------------------------------------------------------------------------------------------
# Sharing: time-slicing and MPS
# --------------------------------------------------------------------------------------------------


def _full_gpu_pool(config: dict, size: str) -> dict:
    software(config).update(installer="device-plugin", version="0.20.0", migStrategy="none")
    pool(config).pop("mig")
    pool(config)["size"] = size
    return config


def test_valid_mps_pool_with_documented_key(aws):
    # The key the MPS error message tells users to set (and that names the problem's field).
    _full_gpu_pool(aws, "g5.12xlarge")
    pool(aws)["sharing"] = {"mps": {"replicas": 4, "allowPrivilegedHostPID": True}}
    (resolved,) = load_stack(aws).pools
    assert resolved.sharing.mps.replicas == 4


def test_mps_with_mig(aws):
    pool(aws)["sharing"] = {"mps": {"replicas": 4}}
    problem_at(aws, "gpupools:gpuPools[0].sharing.mps", "mig")


def test_mps_without_allow_privileged_host_pid(aws):
    _full_gpu_pool(aws, "g5.12xlarge")
    pool(aws)["sharing"] = {"mps": {"replicas": 4}}
    problem_at(aws, "gpupools:gpuPools[0].sharing.mps.allowPrivilegedHostPID", "privileged", "hostPID")


def test_old_mps_key_names_the_new_one(aws):
    """allowPrivilegedHostIPC named a privilege the MPS daemon does not get: one line pointing at the new key."""
    _full_gpu_pool(aws, "g5.12xlarge")
    pool(aws)["sharing"] = {"mps": {"replicas": 4, "allowPrivilegedHostIPC": True}}
    with pytest.raises(ConfigError) as caught:
        load_stack(aws)
    (problem,) = caught.value.problems
    assert problem.field == "gpupools:gpuPools[0].sharing.mps"
    assert "allowPrivilegedHostPID" in problem.message and "unknown key" not in problem.message
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("replicas", [1, 0, -3])
def test_time_slicing_replicas_below_two(aws, replicas):
    pool(aws)["sharing"] = {"timeSlicing": {"replicas": replicas}}
    problem_at(aws, "gpupools:gpuPools[0].sharing.timeSlicing.replicas", str(replicas), "2")


def test_sharing_with_time_slicing_and_mps(aws):
    _full_gpu_pool(aws, "g5.12xlarge")
    pool(aws)["sharing"] = {"timeSlicing": {"replicas": 2}, "mps": {"replicas": 2}}
    problem_at(aws, "gpupools:gpuPools[0].sharing", "timeSlicing", "mps")


def test_sharing_with_neither(aws):
    pool(aws)["sharing"] = {}
    problem_at(aws, "gpupools:gpuPools[0].sharing", "timeSlicing", "mps")


def test_time_slicing_on_mig_devices_is_fine(aws):
    pool(aws)["sharing"] = {"timeSlicing": {"replicas": 2}}
    (resolved,) = load_stack(aws).pools
    assert resolved.device_plugin_config == "p4d-balanced"


# --------------------------------------------------------------------------------------------------
# customSizes
# --------------------------------------------------------------------------------------------------


def test_custom_size_becomes_usable(azure):
    azure["gpupools:customSizes"] = {"Standard_ND40rs_v2": {"gpu": "V100-16GB", "gpus": 8}}
    software(azure)["migStrategy"] = "none"
    pool(azure).pop("mig")
    pool(azure)["size"] = "Standard_ND40rs_v2"
    (resolved,) = load_stack(azure).pools
    assert (resolved.size.name, resolved.gpu.name, resolved.gpus_per_node, resolved.size.cloud) == (
        "Standard_ND40rs_v2",
        "V100-16GB",
        8,
        "azure",
    )


def test_custom_size_needed_for_unknown_size(azure):
    software(azure)["migStrategy"] = "none"
    pool(azure).pop("mig")
    pool(azure)["size"] = "Standard_ND40rs_v2"
    problem_at(azure, "gpupools:gpuPools[0].size", "Standard_ND40rs_v2")


def test_custom_size_with_unknown_gpu_model(azure):
    azure["gpupools:customSizes"] = {"Standard_ND40rs_v2": {"gpu": "V100-32GB", "gpus": 8}}
    problem_at(azure, "gpupools:customSizes.Standard_ND40rs_v2.gpu", "V100-32GB", "V100-16GB")


def test_custom_size_with_mig_gpu_follows_mig_rules(aws):
    aws["gpupools:customSizes"] = {"p4d.12xlarge": {"gpu": "A100-40GB", "gpus": 4}}
    pool(aws)["size"] = "p4d.12xlarge"
    (resolved,) = load_stack(aws).pools
    assert resolved.gpus_per_node == 4
    pool(aws)["mig"] = {"layout": {"1g.5gb": 8}}
    problem_at(aws, LAYOUT, "1g.5gb")


def test_custom_size_with_zero_gpus(azure):
    azure["gpupools:customSizes"] = {"Standard_ND40rs_v2": {"gpu": "V100-16GB", "gpus": 0}}
    problem_at(azure, "gpupools:customSizes.Standard_ND40rs_v2.gpus", "0")


# --------------------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------------------


def test_reserved_label_prefix(aws):
    pool(aws)["labels"] = {"nvidia.com/mig.config": "all-1g.5gb"}
    problem_at(aws, "gpupools:gpuPools[0].labels.nvidia.com/mig.config", "reserved")


def test_invalid_label(aws):
    pool(aws)["labels"] = {"team": "not valid!"}
    problem_at(aws, "gpupools:gpuPools[0].labels", "team=not valid!")


# --------------------------------------------------------------------------------------------------
# All problems at once
# --------------------------------------------------------------------------------------------------


def _assert_one_line_per_problem(error: ConfigError) -> None:
    lines = str(error).splitlines()
    assert len(lines) == len(error.problems)
    for line, problem in zip(lines, error.problems):
        assert line == f"{problem.field}: {problem.message}"


def test_three_independent_rule_errors_reported_together(azure):
    software(azure)["version"] = "latest"
    del cluster(azure)["resourceGroup"]
    pool(azure)["name"] = "BadName"
    with pytest.raises(ConfigError) as caught:
        load_stack(azure)
    fields = {p.field for p in caught.value.problems}
    assert {"gpupools:gpuSoftware.version", "gpupools:cluster.resourceGroup", "gpupools:gpuPools[0].name"} <= fields
    _assert_one_line_per_problem(caught.value)


def test_three_independent_shape_errors_reported_together(azure):
    software(azure)["mixedStrategy"] = True
    pool(azure)["count"] = -1
    azure["gpupools:cloud"] = "gcp"
    with pytest.raises(ConfigError) as caught:
        load_stack(azure)
    fields = {p.field for p in caught.value.problems}
    assert {"gpupools:gpuSoftware.mixedStrategy", "gpupools:gpuPools[0].count", "gpupools:cloud"} <= fields
    _assert_one_line_per_problem(caught.value)


def test_errors_in_two_pools_reported_together(aws):
    aws["gpupools:gpuPools"].append({"name": "g5", "size": "g5.xlarge", "mig": {"profile": "1g.5gb"}})
    pool(aws)["mig"] = {"layout": {"1g.5gb": 9}}
    fields = {p.field for p in problems_of(aws)}
    assert {LAYOUT, "gpupools:gpuPools[1].mig.profile"} <= fields


def test_shape_and_rule_errors_reported_together(azure):
    """ConfigError promises users can fix everything in one pass: a typo must not hide the other errors."""
    software(azure)["mixedStrategy"] = True  # shape: unknown key
    del cluster(azure)["resourceGroup"]  # rule: azure needs a resource group
    pool(azure)["size"] = "p4d.24xlarge"  # rule: size of the other cloud
    with pytest.raises(ConfigError) as caught:
        load_stack(azure)
    fields = {p.field for p in caught.value.problems}
    assert len(caught.value.problems) >= 3, str(caught.value)
    assert {
        "gpupools:gpuSoftware.mixedStrategy",
        "gpupools:cluster.resourceGroup",
        "gpupools:gpuPools[0].size",
    } <= fields


@pytest.mark.parametrize("raw", [None, [], "gpupools", 3])
def test_config_that_is_not_a_mapping(raw):
    with pytest.raises(ConfigError) as caught:
        load_stack(raw)
    assert any(p.field == "gpupools:" for p in caught.value.problems)
