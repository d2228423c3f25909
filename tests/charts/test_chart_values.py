"""Helm values of the NVIDIA charts and the config files they embed, built from small stack configs.

Expected values come from the charts' documented behaviour (device plugin README and values.yaml 0.20.0,
GPU Operator values.yaml v26.7.0 and its AKS/MIG docs). The ``reference`` tests read NVIDIA's files
from ``../shared/reference`` and skip when that folder is absent.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupools.catalog.chart_defaults import DEVICE_PLUGIN_DEFAULTS, GPU_OPERATOR_DEFAULTS
from gpupools.charts.device_plugin import device_plugin_values
from gpupools.charts.device_plugin_config import device_plugin_configs
from gpupools.charts.gpu_operator import gpu_operator_values
from gpupools.charts.mig_parted import mig_parted_config, mig_parted_configmap_data
from gpupools.catalog.installers import installer
from gpupools.config import ConfigError
from gpupools.domain.stack import Stack
from gpupools.resolve.stack_loader import load_stack
from gpupools.catalog.labels import MIG_CONFIG_LABEL
from gpupools.resolve.scheduling import matches_affinity, tolerates

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
A100_40GB_PCI = ["0x20B010DE", "0x20B110DE", "0x20F110DE", "0x20F610DE"]  # mig-profiles.md, A100-SXM4-40GB family


def azure(pools: list[dict[str, Any]], **software: Any) -> Stack:
    return load_stack(
        {
            "cloud": "azure",
            "cluster": {
                "name": "c",
                "resourceGroup": "rg",
                "location": "southcentralus",
                "systemPool": {"size": "Standard_D4s_v5"},
            },
            "gpuPools": pools,
            "gpuSoftware": {"installer": "device-plugin", **software},
        }
    )


def aws(pools: list[dict[str, Any]], **software: Any) -> Stack:
    return load_stack(
        {
            "cloud": "aws",
            "cluster": {"name": "c", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
            "gpuPools": pools,
            "gpuSoftware": {"installer": "gpu-operator", **software},
        }
    )


AKS_MIG1G = {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}}
T4_SLICED = {
    "name": "tfour",
    "size": "Standard_NC64as_T4_v3",
    "sharing": {"timeSlicing": {"replicas": 4, "failRequestsGreaterThanOne": True}},
}
A100_MPS = {
    "name": "mps",
    "size": "Standard_NC24ads_A100_v4",
    "sharing": {"mps": {"replicas": 4, "renameByDefault": True, "allowPrivilegedHostPID": True}},
}
P4D_CUSTOM = {
    "name": "custom",
    "size": "p4d.24xlarge",
    "mig": {"layout": {"1g.5gb": 3, "2g.10gb": 1}},
    "sharing": {"timeSlicing": {"replicas": 2}},
}
P4D_BALANCED = {"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}}
P5_BALANCED = {"name": "hbalanced", "size": "p5.48xlarge", "mig": {"layout": "all-balanced"}}


def pool(stack: Stack, name: str):
    return next(p for p in stack.pools if p.name == name)


def parsed_configs(configs: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {name: yaml.safe_load(text) for name, text in configs.items()}


def reference(*parts: str) -> Path:
    path = REFERENCE.joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"reference file not available: {path}")
    return path


def reference_yaml(*parts: str) -> Any:
    return yaml.safe_load(reference(*parts).read_text(encoding="utf-8"))


# --- device plugin chart ------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["none", "single", "mixed"])
@pytest.mark.parametrize("gfd", [True, False])
def test_device_plugin_values_follow_gpu_software(strategy: str, gfd: bool) -> None:
    pools = [T4_SLICED] if strategy == "none" else [AKS_MIG1G]
    values = device_plugin_values(azure(pools, migStrategy=strategy, gfd=gfd))
    assert values["migStrategy"] == strategy
    assert values["gfd"] == {"enabled": gfd}


def test_device_plugin_keeps_gpu_and_critical_addon_tolerations() -> None:
    stack = azure([AKS_MIG1G])
    values = device_plugin_values(stack)
    assert values["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists"}, GPU_TOLERATION]
    assert tolerates(values["tolerations"], stack.pools[0].taints)


def test_device_plugin_affinity_selects_our_pools_without_nfd() -> None:
    stack = azure([AKS_MIG1G])
    affinity = device_plugin_values(stack)["affinity"]
    assert matches_affinity(affinity, stack.pools[0].labels)
    assert matches_affinity(affinity, {"feature.node.kubernetes.io/pci-10de.present": "true"})
    assert not matches_affinity(affinity, {"kubernetes.azure.com/accelerator": "nvidia"})


def test_device_plugin_config_map_only_with_sharing() -> None:
    assert "config" not in device_plugin_values(azure([AKS_MIG1G]))
    values = device_plugin_values(azure([AKS_MIG1G, T4_SLICED, A100_MPS], migStrategy="single"))
    assert values["config"]["default"] == "default"
    assert set(values["config"]["map"]) == {"default", "tfour", "mps"}
    # The node label of each sharing pool names its entry.
    stack = azure([AKS_MIG1G, T4_SLICED, A100_MPS], migStrategy="single")
    assert {p.labels.get("nvidia.com/device-plugin.config") for p in stack.pools} == {None, "tfour", "mps"}


# --- device plugin config files -----------------------------------------------------------------------


def test_time_slicing_config_of_whole_gpus() -> None:
    configs = parsed_configs(device_plugin_configs(azure([T4_SLICED], migStrategy="none")))
    assert configs["default"] == {"version": "v1", "flags": {"migStrategy": "none"}}
    assert configs["tfour"] == {
        "version": "v1",
        "flags": {"migStrategy": "none"},
        "sharing": {
            "timeSlicing": {
                "renameByDefault": False,
                "failRequestsGreaterThanOne": True,
                "resources": [{"name": "nvidia.com/gpu", "replicas": 4}],
            }
        },
    }


def test_mps_config_renames_when_asked_and_has_no_fail_flag() -> None:
    config = parsed_configs(device_plugin_configs(azure([A100_MPS], migStrategy="none")))["mps"]
    assert config["sharing"] == {
        "mps": {"renameByDefault": True, "resources": [{"name": "nvidia.com/gpu", "replicas": 4}]},
    }


def test_time_slicing_mig_devices_under_single_are_gpus() -> None:
    sliced = {**AKS_MIG1G, "sharing": {"timeSlicing": {"replicas": 3}}}
    config = parsed_configs(device_plugin_configs(azure([sliced], migStrategy="single")))["mig1g"]
    assert config["flags"] == {"migStrategy": "single"}
    assert config["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 3}]


def test_time_slicing_mig_devices_under_mixed_use_mig_resource_names() -> None:
    config = parsed_configs(device_plugin_configs(aws([P4D_CUSTOM], migStrategy="mixed")))["custom"]
    assert config["flags"] == {"migStrategy": "mixed"}
    assert config["sharing"]["timeSlicing"]["resources"] == [
        {"name": "nvidia.com/mig-1g.5gb", "replicas": 2},
        {"name": "nvidia.com/mig-2g.10gb", "replicas": 2},
    ]


def test_a_sharing_pool_named_default_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"gpuPools\[0\]\.name: a pool with sharing cannot be named 'default'"):
        azure([{**T4_SLICED, "name": "default"}], migStrategy="none")


def test_mps_pools_carry_the_label_the_mps_daemon_selects() -> None:
    stack = azure([A100_MPS, T4_SLICED], migStrategy="none", gfd=False)
    assert pool(stack, "mps").labels["nvidia.com/mps.capable"] == "true"
    assert "nvidia.com/mps.capable" not in pool(stack, "tfour").labels


# --- GPU Operator chart -------------------------------------------------------------------------------


def test_operator_leaves_preinstalled_driver_and_toolkit_alone() -> None:
    values = gpu_operator_values(aws([P4D_BALANCED], migStrategy="mixed"))
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"] == {"enabled": False}
    assert "operator" not in values  # EKS NVIDIA AMIs use the chart's default runtime class


def test_operator_installs_driver_and_toolkit_when_asked() -> None:
    # On AKS only: the GPU Operator has no driver container for Amazon Linux, so aws refuses driver: operator.
    values = gpu_operator_values(azure([AKS_MIG1G], installer="gpu-operator", driver="operator", migStrategy="mixed"))
    assert values["driver"] == {"enabled": True}
    assert values["toolkit"] == {"enabled": True}


def test_operator_on_aks_images_uses_their_runtime_handler() -> None:
    values = gpu_operator_values(azure([AKS_MIG1G], installer="gpu-operator"))
    assert values["operator"] == {"runtimeClass": "nvidia-container-runtime"}
    assert (values["driver"], values["toolkit"]) == ({"enabled": False}, {"enabled": False})


def test_mig_manager_only_for_operator_managed_mig() -> None:
    # AKS applied MIG1g at pool creation: the MIG manager must not run at all.
    assert gpu_operator_values(azure([AKS_MIG1G], installer="gpu-operator"))["migManager"] == {"enabled": False}
    # No MIG anywhere.
    no_mig = aws([{"name": "l4", "size": "g6.xlarge"}], migStrategy="none")
    assert gpu_operator_values(no_mig)["migManager"] == {"enabled": False}
    # The operator applies all-balanced: enabled, with the reboot NVIDIA documents for cloud VMs.
    manager = gpu_operator_values(aws([P4D_BALANCED], migStrategy="mixed"))["migManager"]
    assert manager == {"enabled": True, "env": [{"name": "WITH_REBOOT", "value": "true"}]}


def test_custom_mig_config_only_with_custom_layouts() -> None:
    named = aws([P4D_BALANCED, P5_BALANCED], migStrategy="mixed")
    assert mig_parted_config(named) is None
    assert mig_parted_configmap_data(named) is None
    assert "config" not in gpu_operator_values(named)["migManager"]


def test_custom_mig_config_holds_every_layout_a_node_label_references() -> None:
    stack = aws([P4D_CUSTOM, P4D_BALANCED, P5_BALANCED, {**P4D_BALANCED, "name": "balanced2"}], migStrategy="mixed")
    config = gpu_operator_values(stack)["migManager"]["config"]
    assert (config["name"], config["create"], config["default"]) == ("gpupools-mig-parted-config", True, "all-disabled")
    assert set(config["data"]) == {"config.yaml"}
    parted = yaml.safe_load(config["data"]["config.yaml"])
    assert parted["version"] == "v1"
    layouts = parted["mig-configs"]
    referenced = {p.labels[MIG_CONFIG_LABEL] for p in stack.pools} | {config["default"]}
    assert referenced <= set(layouts)
    assert layouts["all-disabled"] == [{"devices": "all", "mig-enabled": False}]
    (custom,) = layouts[pool(stack, "custom").labels[MIG_CONFIG_LABEL]]
    assert custom == {
        "device-filter": A100_40GB_PCI,
        "devices": "all",
        "mig-enabled": True,
        "mig-devices": {"1g.5gb": 3, "2g.10gb": 1},
    }
    # all-balanced once per GPU model (two A100 pools share an entry), each limited to its GPU.
    filters = [entry["device-filter"] for entry in layouts["all-balanced"]]
    assert len(filters) == 2 and A100_40GB_PCI in filters


def test_operator_device_plugin_config_only_with_sharing() -> None:
    assert "devicePlugin" not in gpu_operator_values(aws([P4D_BALANCED], migStrategy="mixed"))
    stack = aws([P4D_CUSTOM, P4D_BALANCED], migStrategy="mixed")
    config = gpu_operator_values(stack)["devicePlugin"]["config"]
    assert (config["name"], config["create"], config["default"]) == ("gpupools-device-plugin-config", True, "default")
    assert set(config["data"]) == {"default", "custom"}
    assert yaml.safe_load(config["data"]["custom"])["sharing"]["timeSlicing"]["resources"][0]["replicas"] == 2


@pytest.mark.parametrize("gfd", [True, False])
def test_operator_runs_nfd_and_tolerates_the_gpu_taint(gfd: bool) -> None:
    stack = aws([P4D_BALANCED], migStrategy="mixed", gfd=gfd)
    values = gpu_operator_values(stack)
    assert values["mig"] == {"strategy": "mixed"}
    assert values["gfd"] == {"enabled": gfd}
    assert values["nfd"] == {"enabled": True}
    assert GPU_TOLERATION in values["daemonsets"]["tolerations"]
    assert tolerates(values["daemonsets"]["tolerations"], stack.pools[0].taints)


# --- against NVIDIA's reference files -----------------------------------------------------------------


def key_paths(values: dict[str, Any], reference_values: dict[str, Any], prefix: str = "") -> list[tuple[str, bool]]:
    """Each key path of ``values`` with whether the chart's values.yaml defines it.

    Descends only while the chart's value is a non-empty mapping: below ``config.map: {}`` or a list
    the keys are data, not chart options.
    """
    paths = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        known = isinstance(reference_values, dict) and key in reference_values
        paths.append((path, known))
        child = reference_values.get(key) if known else None
        if known and isinstance(value, dict) and isinstance(child, dict) and child:
            paths += key_paths(value, child, f"{path}.")
    return paths


def rich_device_plugin_stack() -> Stack:
    return azure([AKS_MIG1G, T4_SLICED, A100_MPS], migStrategy="single", gfd=True)


def rich_operator_stacks() -> list[Stack]:
    return [
        aws([P4D_CUSTOM, P4D_BALANCED, {**A100_MPS, "name": "mps", "size": "p5.4xlarge"}], migStrategy="mixed"),
        azure([AKS_MIG1G, T4_SLICED], installer="gpu-operator"),
    ]


def test_reference_device_plugin_value_keys_exist() -> None:
    chart_values = reference_yaml("nvidia-device-plugin", "values.yaml")
    unknown = [
        path for path, known in key_paths(device_plugin_values(rich_device_plugin_stack()), chart_values) if not known
    ]
    assert unknown == []


def test_reference_operator_value_keys_exist() -> None:
    chart_values = reference_yaml("gpu-operator", "values.yaml")
    for stack in rich_operator_stacks():
        unknown = [path for path, known in key_paths(gpu_operator_values(stack), chart_values) if not known]
        assert unknown == []


def test_reference_device_plugin_keeps_chart_tolerations_and_affinity_terms() -> None:
    chart_values = reference_yaml("nvidia-device-plugin", "values.yaml")
    values = device_plugin_values(rich_device_plugin_stack())
    assert values["tolerations"] == chart_values["tolerations"]
    ours, chart = (
        _at(v, "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms")
        for v in (values, chart_values)
    )
    assert all(term in ours for term in chart)


def test_reference_sharing_configs_match_readme_examples() -> None:
    for mode, example_file, sharing in (
        ("timeSlicing", "time-slicing-example.yaml", {"timeSlicing": {"replicas": 10}}),
        ("mps", "mps-example.yaml", {"mps": {"replicas": 10, "allowPrivilegedHostPID": True}}),
    ):
        example = reference_yaml("nvidia-device-plugin", "config-examples", example_file)
        stack = azure([{**T4_SLICED, "sharing": sharing}], migStrategy="none")
        ours = yaml.safe_load(device_plugin_configs(stack)["tfour"])
        assert ours["version"] == example["version"]
        assert ours["sharing"][mode]["resources"] == example["sharing"][mode]["resources"]


def test_reference_runtime_class_is_the_aks_docs_one() -> None:
    text = reference("gpu-operator", "docs", "microsoft-aks.rst").read_text(encoding="utf-8")
    documented = re.search(r"operator\.runtimeClass=(\S+)", text)
    assert documented is not None
    values = gpu_operator_values(azure([AKS_MIG1G], installer="gpu-operator"))
    assert values["operator"]["runtimeClass"] == documented.group(1)


def test_reference_named_layouts_equal_nvidia_default_mig_config() -> None:
    document = reference_yaml("gpu-operator", "default-mig-parted-config.yaml")
    nvidia = yaml.safe_load(document["data"]["config.yaml"])["mig-configs"]
    stack = aws([P4D_CUSTOM, P4D_BALANCED, P5_BALANCED], migStrategy="mixed")
    ours = mig_parted_config(stack)
    assert ours is not None
    assert ours["mig-configs"]["all-disabled"] == nvidia["all-disabled"]
    for entry in ours["mig-configs"]["all-balanced"]:  # one per GPU model: A100-40GB and H100-80GB
        matching = [e for e in nvidia["all-balanced"] if set(entry["device-filter"]) <= set(_filter(e))]
        assert len(matching) == 1, entry["device-filter"]
        assert entry["mig-devices"] == matching[0]["mig-devices"]
    (custom,) = ours["mig-configs"]["gpupools-custom"]
    a100_40gb = next(e for e in nvidia["all-balanced"] if "1g.5gb" in e["mig-devices"])
    assert custom["device-filter"] == _filter(a100_40gb)


def _filter(entry: dict[str, Any]) -> list[str]:
    device_filter = entry.get("device-filter", [])
    return [device_filter] if isinstance(device_filter, str) else list(device_filter)


def test_reference_chart_defaults_table_matches_values_yaml() -> None:
    for defaults, folder in ((DEVICE_PLUGIN_DEFAULTS, "nvidia-device-plugin"), (GPU_OPERATOR_DEFAULTS, "gpu-operator")):
        chart_values = reference_yaml(folder, "values.yaml")
        for path, value in _leaves(defaults.values):
            assert _at(chart_values, path) == value, f"{folder} {path}"
        for daemonset in defaults.daemonsets:
            assert _has(chart_values, daemonset.tolerations_at), f"{folder} {daemonset.name}"
            assert not daemonset.enabled_by or any(_has(chart_values, p) for p in daemonset.enabled_by)


def test_reference_device_plugin_nfd_follows_chart_dependency_condition() -> None:
    chart = reference_yaml("nvidia-device-plugin", "Chart.yaml")
    assert chart["version"] == installer("device-plugin").chart.default_version
    (nfd,) = [d for d in chart["dependencies"] if d["alias"] == "nfd"]
    (worker,) = [d for d in DEVICE_PLUGIN_DEFAULTS.daemonsets if d.name == "nfd-worker"]
    assert tuple(nfd["condition"].split(",")) == worker.enabled_by


def _leaves(values: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(values, dict) and values:
        return [leaf for key, value in values.items() for leaf in _leaves(value, f"{prefix}{key}.")]
    return [(prefix.rstrip("."), values)]


def _at(values: Any, path: str) -> Any:
    for part in path.split("."):
        values = values[part]
    return values


def _has(values: Any, path: str) -> bool:
    for part in path.split("."):
        if not isinstance(values, dict) or part not in values:
            return False
        values = values[part]
    return True
