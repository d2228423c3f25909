"""installer dra-driver: the devices the driver publishes per pool, the generated DeviceClasses evaluated with a real
CEL implementation (cel-python) against ResourceSlices built as the driver's attribute reference documents them,
the claim wiring of ``slice_workload``, and the refusals of ``check``.

Expected counts come from NVIDIA's layouts (mig-profiles.md): an A100-40GB holds 7x 1g.5gb; all-balanced is
2x 1g.5gb, 1x 2g.10gb, 1x 3g.20gb per GPU; ND96asr_v4 and p4d.24xlarge have 8 GPUs.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from gpupools.catalog.gpus import GPU_MODELS
from gpupools.charts.dra_driver import dra_driver_values
from gpupools.charts.values import addon_chart_values
from gpupools.config import ConfigError
from gpupools.domain.dra import DraClass, DraDevice, dra_classes, published_devices, selector
from gpupools.domain.stack import Stack
from gpupools.domain.workloads import WorkloadError, slice_workload
from gpupools.resolve.dra_rules import publisher_problems
from gpupools.resolve.scheduling import placements
from gpupools.resolve.stack_loader import load_stack
from gpupools.charts.dra_driver import operator_beside_dra_values
from gpupools.catalog.chart_defaults import GPU_OPERATOR_DEFAULTS
from support.dra_slices import (
    cel_device,
    gi_profile_id,
    gpu_device,
    mig_device,
    mig_name,
    node_slice,
    rfc1123,
    vfio_device,
)

celpy = pytest.importorskip("celpy")
from support.dra_allocator import compiled  # noqa: E402 (needs celpy, skipped above without it)

AKS_MIG1G = {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}}
P4D_BALANCED = {"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}}


def azure(pools: list[dict[str, Any]], version: str = "1.34", **software: Any) -> Stack:
    return load_stack(
        {
            "cloud": "azure",
            "cluster": {
                "name": "c",
                "resourceGroup": "rg",
                "location": "southcentralus",
                "kubernetesVersion": version,
                "systemPool": {"size": "Standard_D4s_v5"},
            },
            "gpuPools": pools,
            "gpuSoftware": {"installer": "dra-driver", **software},
        }
    )


def aws(pools: list[dict[str, Any]], version: str = "1.34", **software: Any) -> Stack:
    return load_stack(
        {
            "cloud": "aws",
            "cluster": {
                "name": "c",
                "region": "us-east-1",
                "kubernetesVersion": version,
                "systemPool": {"size": "m6i.large"},
            },
            "gpuPools": pools,
            "gpuSoftware": {"installer": "dra-driver", **software},
        }
    )


def matches(expression: str, device: dict[str, Any]) -> bool:
    return _matches(expression, json.dumps(cel_device(device), sort_keys=True))


@functools.cache
def _matches(expression: str, variable: str) -> bool:
    """Once per expression and CEL ``device`` (as JSON): every node of a pool publishes the same devices."""
    return bool(compiled(expression).evaluate({"device": celpy.json_to_cel(json.loads(variable))}))


def matching(cls: DraClass, slices: list[dict[str, Any]]) -> list[str]:
    (sel,) = cls.device_class()["spec"]["selectors"]
    return [
        f"{s['spec']['nodeName']}/{d['name']}"
        for s in slices
        for d in s["spec"]["devices"]
        if matches(sel["cel"]["expression"], d)
    ]


def simulated(stack: Stack) -> list[dict[str, Any]]:
    """One slice per node of every pool, from the catalog GPU and the pool's MIG devices."""
    slices = []
    for pool in stack.pools:
        memory = {p.name: p.memory_gb for p in pool.gpu.profiles}
        for node in range(pool.nodes):
            slices.append(
                node_slice(
                    f"{pool.name}-{node}",
                    pool.gpus_per_node,
                    f"NVIDIA {pool.gpu.name}",
                    pool.gpu.memory_gb,
                    pool.mig.devices if pool.mig else None,
                    memory,
                )
            )
    return slices


def test_aks_mig1g_class_selects_the_56_1g5gb_devices_and_nothing_else() -> None:
    stack = azure([AKS_MIG1G])
    (cls,) = dra_classes(stack)
    slices = simulated(stack)
    found = matching(cls, slices)
    assert len(found) == 56 and all("-mig-1g5gb-19-" in name for name in found)  # the driver's names
    assert cls.device == DraDevice("mig", "1g.5gb", 56, 7, 5)


def test_eks_all_balanced_classes_select_16_8_8_and_nothing_else() -> None:
    stack = aws([P4D_BALANCED])
    classes = {cls.device.profile: cls for cls in dra_classes(stack)}
    slices = simulated(stack)
    counts = {profile: len(matching(cls, slices)) for profile, cls in classes.items()}
    assert counts == {"1g.5gb": 16, "2g.10gb": 8, "3g.20gb": 8}
    everything = sum(len(s["spec"]["devices"]) for s in slices)
    assert sum(counts.values()) == everything  # each device is picked by exactly one class
    for profile, cls in classes.items():
        assert all(f"-mig-{rfc1123(profile)}-" in name for name in matching(cls, slices))


@pytest.mark.parametrize("gpu", sorted(GPU_MODELS))
def test_every_catalog_gpu_and_profile_is_selected_exactly(gpu: str) -> None:
    model = GPU_MODELS[gpu]
    devices = [gpu_device(0, f"NVIDIA {gpu}", model.memory_gb), vfio_device(0, f"NVIDIA {gpu}")]
    devices += [
        mig_device(0, p.name, f"NVIDIA {gpu}", p.memory_gb, gi_profile_id(model, p.name), 0, p.memory_slices)
        for p in model.profiles
    ]
    kinds = [DraDevice("gpu", None, 1, 1, model.memory_gb)]
    kinds += [DraDevice("mig", p.name, 1, 1, p.memory_gb) for p in model.profiles]
    for kind in kinds:
        picked = [d["name"] for d in devices if matches(selector(kind), d)]
        expected = (
            ["gpu-0"] if kind.profile is None else [mig_name(0, kind.profile, gi_profile_id(model, kind.profile), 0)]
        )
        assert picked == expected, (kind, picked)


def test_a_selector_that_does_not_compile_fails() -> None:
    env = celpy.Environment()
    with pytest.raises(celpy.CELParseError):
        env.compile("device.attributes['gpu.nvidia.com'].type == ")


def test_classes_are_valid_names_and_extended_resource_names_from_1_36_only() -> None:
    early, late = azure([AKS_MIG1G]), azure([AKS_MIG1G], "1.36")
    assert "extendedResourceName" not in dra_classes(early)[0].device_class()["spec"]
    assert dra_classes(late)[0].device_class()["spec"]["extendedResourceName"] == "nvidia.com/mig-1g.5gb"
    assert dra_classes(late)[0].name == "mig1g-mig-1g.5gb.gpupools.io"


def test_two_pools_with_one_profile_leave_the_extended_resource_name_unset() -> None:
    stack = azure([AKS_MIG1G, {**AKS_MIG1G, "name": "other"}], "1.36")
    assert all("extendedResourceName" not in cls.device_class()["spec"] for cls in dra_classes(stack))


def test_whole_gpu_pool_publishes_gpus_with_their_memory() -> None:
    stack = aws([{"name": "whole", "size": "g6.12xlarge"}])
    (device,) = published_devices(stack.pools[0])
    assert (device.kind, device.profile, device.per_node, device.memory_gb) == ("gpu", None, 4, 24)


def test_slice_workload_wires_a_claim_on_the_pool_template() -> None:
    stack = azure([AKS_MIG1G])
    workload = slice_workload(stack, "mig1g")
    assert workload.limits == {}
    assert workload.resource_claims == [{"name": "gpu", "resourceClaimTemplateName": "mig1g-mig-1g.5gb"}]
    assert workload.claims == [{"name": "gpu"}]
    request = workload.claim_template["spec"]["spec"]["devices"]["requests"][0]
    assert request["exactly"] == {"deviceClassName": "mig1g-mig-1g.5gb.gpupools.io"}


def test_several_mig_slices_share_one_gpu_through_match_attribute() -> None:
    workload = slice_workload(aws([P4D_BALANCED]), "balanced", "1g.5gb", 2)
    devices = workload.claim_template["spec"]["spec"]["devices"]
    assert devices["constraints"] == [{"requests": ["slice"], "matchAttribute": "gpu.nvidia.com/parentUUID"}]
    assert devices["requests"][0]["exactly"]["count"] == 2


@pytest.mark.parametrize("profile, count", [("1g.5gb", 3), ("2g.10gb", 2), ("7g.40gb", 1)])
def test_a_claim_no_node_of_the_pool_can_satisfy_is_refused_while_planning(profile: str, count: int) -> None:
    with pytest.raises(WorkloadError):
        slice_workload(aws([P4D_BALANCED]), "balanced", profile, count)


def test_values_follow_who_installs_the_driver() -> None:
    assert dra_driver_values(azure([AKS_MIG1G]))["nvidiaDriverRoot"] == "/"
    operator = azure([{"name": "whole", "size": "Standard_NC24ads_A100_v4"}], driver="operator")
    assert dra_driver_values(operator)["nvidiaDriverRoot"] == "/run/nvidia/driver"
    values = dra_driver_values(operator)
    assert values["gpuResourcesEnabledOverride"] is True and "featureGates" not in values


def test_operator_beside_dra_has_its_device_plugin_off() -> None:
    ((defaults, values),) = addon_chart_values(aws([P4D_BALANCED]))
    assert defaults.chart.name == "gpu-operator"
    assert values["devicePlugin"] == {"enabled": False} and values["migManager"]["enabled"] is True


def test_an_opted_in_sharing_mode_sets_its_gate_and_nothing_more() -> None:
    pool = {"name": "tfour", "size": "Standard_NC64as_T4_v3", "sharing": {"timeSlicing": {"replicas": 4}}}
    values = dra_driver_values(azure([pool], draAlphaGates=["TimeSlicingSettings"]))
    assert values["featureGates"] == {"TimeSlicingSettings": True}


def problems(build, *args, **kwargs) -> str:
    with pytest.raises(ConfigError) as error:
        build(*args, **kwargs)
    return str(error.value)


def test_check_refuses_kubernetes_below_the_driver_minimum() -> None:
    message = problems(azure, [AKS_MIG1G], "1.33")
    assert "cluster.kubernetesVersion" in message and "1.34.2" in message


def test_check_refuses_alpha_sharing_unless_named() -> None:
    pool = {
        "name": "mps",
        "size": "Standard_NC24ads_A100_v4",
        "sharing": {"mps": {"replicas": 4, "allowPrivilegedHostPID": True}},
    }
    assert "MPSSupport" in problems(azure, [pool])
    assert dra_driver_values(azure([pool], draAlphaGates=["MPSSupport"]))["featureGates"] == {"MPSSupport": True}


def test_check_refuses_time_slicing_of_mig_devices() -> None:
    pool = {**P4D_BALANCED, "sharing": {"timeSlicing": {"replicas": 2}}}
    assert "no effect on MIG devices" in problems(aws, [pool], draAlphaGates=["TimeSlicingSettings"])


def test_check_refuses_a_mig_layout_without_devices() -> None:
    # MIG on with no partition "strands the GPU" under the DRA driver; the config shape already refuses it.
    pool = {"name": "empty", "size": "p4d.24xlarge", "mig": {"layout": {}}}
    assert "needs at least one profile" in problems(aws, [pool])


def test_a_mig_capable_pool_without_mig_beside_operator_layouts_keeps_mig_off() -> None:
    stack = aws([P4D_BALANCED, {"name": "whole", "size": "p4d.24xlarge"}])
    whole = next(p for p in stack.pools if p.name == "whole")
    assert whole.labels["nvidia.com/gpu.deploy.mig-manager"] == "true"  # the manager applies all-disabled there
    assert [d.kind for d in published_devices(whole)] == ["gpu"]


def test_alpha_gates_are_for_the_dra_installer_only() -> None:
    message = problems(
        load_stack,
        {
            "cloud": "aws",
            "cluster": {"name": "c", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
            "gpuPools": [{"name": "whole", "size": "g6.12xlarge"}],
            "gpuSoftware": {"installer": "device-plugin", "draAlphaGates": ["MPSSupport"]},
        },
    )
    assert "gpuSoftware.draAlphaGates" in message


def test_scale_from_zero_of_a_dra_pool_is_warned() -> None:
    stack = aws([{"name": "whole", "size": "g6.12xlarge", "count": 1, "autoscaling": {"minCount": 0, "maxCount": 2}}])
    assert any(
        w.startswith(
            "pool whole: minCount 0: DRA pools cannot scale from zero: the cluster autoscaler's AWS "
            "provider builds template nodes with no ResourceSlices"
        )
        for w in stack.warnings
    )


@pytest.mark.parametrize("min_count", [0, 1])
def test_the_autoscaling_section_says_dra_pools_do_not_scale_from_zero(min_count: int) -> None:
    from gpupools.domain.node_templates import autoscaled_pools

    bounds = {"minCount": min_count, "maxCount": 2}
    eks = aws([{"name": "whole", "size": "g6.12xlarge", "count": 1, "autoscaling": bounds}])
    aks = azure([{"name": "whole", "size": "Standard_NC24ads_A100_v4", "count": 1, "autoscaling": bounds}])
    for stack, provider in ((eks, "AWS"), (aks, "Azure")):
        (row,) = autoscaled_pools(stack)
        assert row.from_zero is False and row.to_json()["scaleFromZero"] is False
        assert f"the cluster autoscaler's {provider} provider builds template nodes with no ResourceSlices" in row.why
        assert "does not scale from zero: " in row.line()
        assert ("keeps a node up" in row.why) == (min_count > 0)
        assert any("minCount 0: DRA pools" in w for w in stack.warnings) == (min_count == 0)


def test_the_device_plugin_and_the_dra_plugin_on_one_node_are_refused() -> None:
    stack = aws([P4D_BALANCED])
    values = operator_beside_dra_values(stack)
    alone = [(GPU_OPERATOR_DEFAULTS, values)]
    assert not publisher_problems(stack, placements(stack, dra_driver_values(stack), alone), alone)
    both = [(GPU_OPERATOR_DEFAULTS, {**values, "devicePlugin": {"enabled": True}})]
    (problem,) = publisher_problems(stack, placements(stack, dra_driver_values(stack), both), both)
    assert "pool balanced" in problem.message and "cannot run alongside" in problem.message
