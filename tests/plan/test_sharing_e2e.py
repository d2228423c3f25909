"""Each sharing mode end to end: stack config in, the real program under mocks, chart values and capacity out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupools.plan.offline import Plan
from gpupools.catalog.labels import POOL_LABEL
from support.stack_files import plan_config

EKS_CLUSTER = {"name": "gpu", "region": "us-east-1", "systemPool": {"size": "m6i.large"}}


def plan(tmp_path: Path, pools: list[dict[str, Any]], software: dict[str, Any], cloud: str = "aws") -> Plan:
    cluster = (
        EKS_CLUSTER
        if cloud == "aws"
        else {"name": "gpu", "resourceGroup": "rg", "location": "westus", "systemPool": {"size": "Standard_D4s_v5"}}
    )
    return plan_config(
        tmp_path,
        {
            "gpupools:cloud": cloud,
            "gpupools:cluster": cluster,
            "gpupools:gpuPools": pools,
            "gpupools:gpuSoftware": software,
        },
        "share",
    )


def release_values(result: Plan) -> dict[str, Any]:
    return next(r for r in result.resources if r["type"] == "kubernetes:helm.sh/v3:Release")["inputs"]["values"]


def node_labels(result: Plan, pool: str) -> dict[str, str]:
    for resource in result.resources:
        # Found by the pool label: the cloud name carries a generation suffix (rotation: surge).
        if resource["type"] == "eks:index:ManagedNodeGroup" and resource["inputs"]["labels"].get(POOL_LABEL) == pool:
            return resource["inputs"]["labels"]
        if (
            resource["type"] == "azure-native:containerservice:AgentPool"
            and resource["inputs"]["nodeLabels"].get(POOL_LABEL) == pool
        ):
            return resource["inputs"]["nodeLabels"]
    raise AssertionError(f"no node group for {pool}")


def capacity(result: Plan, pool: str) -> dict[str, int]:
    return next(c.per_node for c in result.capacity if c.pool == pool)


def test_custom_mig_mix_becomes_a_mig_manager_configmap_and_a_node_label(tmp_path: Path) -> None:
    mix = {"1g.5gb": 3, "2g.10gb": 2}  # 3 + 4 = 7 compute slices, 3 + 4 = 7 of 8 memory slices on an A100 40GB
    result = plan(
        tmp_path,
        [
            {"name": "custom", "size": "p4d.24xlarge", "mig": {"layout": mix}},
            {"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}},
        ],
        {"installer": "gpu-operator", "migStrategy": "mixed"},
    )
    manager = release_values(result)["migManager"]
    assert manager["enabled"] is True
    assert manager["config"]["create"] is True
    configs = yaml.safe_load(manager["config"]["data"]["config.yaml"])["mig-configs"]
    label = node_labels(result, "custom")["nvidia.com/mig.config"]
    # The layout the node label names is in the ConfigMap, filtered to the A100 40GB SXM4 (PCI 0x20B0).
    entry = configs[label][0]
    assert entry["mig-devices"] == mix and entry["mig-enabled"] is True
    assert "0x20B010DE" in entry["device-filter"]
    # A custom config replaces the operator's generated one, so every label in use must be defined.
    assert node_labels(result, "balanced")["nvidia.com/mig.config"] in configs
    assert "all-disabled" in configs
    assert capacity(result, "custom") == {"nvidia.com/mig-1g.5gb": 8 * 3, "nvidia.com/mig-2g.10gb": 8 * 2}


def test_time_slicing_mig_devices_under_the_operator(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        [
            {
                "name": "sliced",
                "size": "p4d.24xlarge",
                "mig": {"layout": "all-3g.20gb"},
                "sharing": {"timeSlicing": {"replicas": 3}},
            }
        ],
        {"installer": "gpu-operator", "migStrategy": "mixed"},
    )
    config = release_values(result)["devicePlugin"]["config"]
    assert node_labels(result, "sliced")["nvidia.com/device-plugin.config"] == "sliced"
    sliced = yaml.safe_load(config["data"]["sliced"])
    assert sliced["version"] == "v1" and sliced["flags"]["migStrategy"] == "mixed"
    assert sliced["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/mig-3g.20gb", "replicas": 3}]
    assert config["default"] in config["data"]
    # 2x 3g.20gb per GPU, 8 GPUs, each device advertised 3 times.
    assert capacity(result, "sliced") == {"nvidia.com/mig-3g.20gb": 2 * 8 * 3}


def test_mps_on_whole_gpus_with_the_device_plugin_chart(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        [
            {
                "name": "mps",
                "size": "Standard_NC24ads_A100_v4",
                "sharing": {"mps": {"replicas": 8, "allowPrivilegedHostPID": True}},
            }
        ],
        {"installer": "device-plugin", "migStrategy": "none"},
        cloud="azure",
    )
    values = release_values(result)
    mps = yaml.safe_load(values["config"]["map"]["mps"])
    assert mps["sharing"]["mps"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 8}]
    labels = node_labels(result, "mps")
    assert labels["nvidia.com/device-plugin.config"] == "mps"
    assert labels["nvidia.com/mps.capable"] == "true"  # the MPS daemon's node selector
    assert capacity(result, "mps") == {"nvidia.com/gpu": 8}  # one A100 80GB, 8 MPS clients
    daemon = [p for p in result.placements if p.daemonset == "mps-control-daemon"]
    assert daemon and all(p.schedules for p in daemon)


def test_renamed_time_slices_on_whole_gpus(tmp_path: Path) -> None:
    result = plan(
        tmp_path,
        [
            {
                "name": "lfour",
                "size": "g6.12xlarge",
                "sharing": {"timeSlicing": {"replicas": 2, "renameByDefault": True}},
            }
        ],
        {"installer": "device-plugin", "migStrategy": "none"},
    )
    sliced = yaml.safe_load(release_values(result)["config"]["map"]["lfour"])
    assert sliced["sharing"]["timeSlicing"]["renameByDefault"] is True
    assert capacity(result, "lfour") == {"nvidia.com/gpu.shared": 4 * 2}


@pytest.mark.parametrize(
    ("pool", "software", "field"),
    [
        (
            {
                "name": "m",
                "size": "p4d.24xlarge",
                "mig": {"layout": "all-balanced"},
                "sharing": {"mps": {"replicas": 2, "allowPrivilegedHostPID": True}},
            },
            "gpu-operator",
            "sharing.mps",
        ),
        (
            {"name": "m", "size": "g5.xlarge", "sharing": {"mps": {"replicas": 2}}},
            "device-plugin",
            "sharing.mps.allowPrivilegedHostPID",
        ),
        (
            {"name": "m", "size": "g5.xlarge", "sharing": {"timeSlicing": {"replicas": 1}}},
            "device-plugin",
            "sharing.timeSlicing.replicas",
        ),
        (
            {"name": "m", "size": "p4d.24xlarge", "mig": {"layout": {"3g.20gb": 2, "2g.10gb": 1}}},
            "gpu-operator",
            "mig.layout",
        ),
        ({"name": "m", "size": "p4d.24xlarge", "mig": {"layout": "all-1g.10gb.me"}}, "gpu-operator", "mig.layout"),
    ],
)
def test_invalid_sharing_is_refused_before_the_program_runs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pool: dict,
    software: str,
    field: str,
) -> None:
    from gpupools.config import ConfigError
    import gpupools.offline_runtime.runner as runner

    monkeypatch.setattr(runner, "run_program", lambda *a, **k: pytest.fail("the program must not run"))
    strategy = "mixed" if software == "gpu-operator" else "none"
    with pytest.raises(ConfigError) as caught:
        plan(tmp_path, [pool], {"installer": software, "migStrategy": strategy})
    assert f"gpupools:gpuPools[0].{field}" in {p.field for p in caught.value.problems}
