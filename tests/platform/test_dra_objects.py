"""installer dra-driver: the program creates each pool's DeviceClasses and ResourceClaimTemplates as
``resource.k8s.io/v1`` resources, and the stack outputs name them. Asserted on what the engine receives under the
mocks (type tokens, inputs, parent, provider, dependencies), and the recorded selectors evaluated with cel-python
against ResourceSlices built as the driver's attribute reference documents them.

Expected figures are published ones: Standard_ND96asr_v4 and p4d.24xlarge carry 8x A100 40GB; an A100 40GB holds
7x 1g.5gb; all-balanced is 2x 1g.5gb + 1x 2g.10gb + 1x 3g.20gb per GPU (mig-profiles.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.dra_slices import cel_device, node_slice
from support.resources import plan_named, plan_of_type
from support.stack_files import plan_config

celpy = pytest.importorskip("celpy")

DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
CLAIM_TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
RELEASE = "kubernetes:helm.sh/v3:Release"
NAMESPACE = "dra-driver-nvidia-gpu"  # the chart's name: the gpuSoftware namespace by default


def _plan(tmp_path: Path, cloud: str, pool: dict[str, Any], version: str = "1.34", **software: Any):
    cluster = (
        {
            "name": "gpu-dra",
            "resourceGroup": "rg",
            "location": "southcentralus",
            "systemPool": {"size": "Standard_D4s_v5"},
        }
        if cloud == "azure"
        else {"name": "gpu-dra", "region": "us-east-1", "systemPool": {"size": "m6i.large"}}
    )
    config = {
        "cloud": cloud,
        "cluster": {**cluster, "kubernetesVersion": version},
        "gpuPools": [pool],
        "gpuSoftware": {"installer": "dra-driver", **software},
    }
    return plan_config(tmp_path, {f"gpupools:{key}": value for key, value in config.items()}, "dra")


def _selected(device_class: dict[str, Any], slices: list[dict[str, Any]]) -> list[str]:
    (selector,) = device_class["inputs"]["spec"]["selectors"]
    env = celpy.Environment()
    program = env.program(env.compile(selector["cel"]["expression"]))
    return [
        d["name"]
        for s in slices
        for d in s["spec"]["devices"]
        if program.evaluate({"device": celpy.json_to_cel(cel_device(d))})
    ]


def test_aks_mig1g_stack_creates_a_class_and_template_after_the_driver_release(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "azure", {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}})
    (device_class,) = plan_of_type(plan, DEVICE_CLASS)
    (template,) = plan_of_type(plan, CLAIM_TEMPLATE)
    assert device_class["name"] == "mig1g-mig-1g.5gb.gpupools.io" and template["name"] == "mig1g-mig-1g.5gb"
    assert device_class["inputs"]["apiVersion"] == "resource.k8s.io/v1"
    assert device_class["inputs"]["metadata"] == {"name": "mig1g-mig-1g.5gb.gpupools.io"}
    assert template["inputs"]["metadata"] == {"name": "mig1g-mig-1g.5gb", "namespace": NAMESPACE}
    assert template["inputs"]["spec"] == {
        "spec": {
            "devices": {"requests": [{"name": "slice", "exactly": {"deviceClassName": "mig1g-mig-1g.5gb.gpupools.io"}}]}
        }
    }
    # What the class selects on the node's published slice: the 56 MIG 1g.5gb devices of 8 GPUs.
    slices = [node_slice("node-0", 8, "NVIDIA A100 40GB", 40, {"1g.5gb": 7}, {"1g.5gb": 5})]
    assert len(_selected(device_class, slices)) == 56
    # Parent, provider and dependencies as the engine gets them: the platform, the cluster's provider, the release.
    release = plan_named(plan, "dra-driver-release")
    platform = plan_named(plan, "gpupools")
    for resource in (device_class, template):
        assert resource["parent"] == platform["name"] == "gpupools"
        assert "$pulumi:providers:kubernetes::gpu-dra-k8s::" in resource["options"]["provider"]  # the cluster's
        assert any(urn.endswith(f"{RELEASE}::dra-driver-release") for urn in resource["options"]["dependencies"])
    assert release["inputs"]["namespace"] == NAMESPACE
    assert plan.outputs["gpuPools"]["mig1g"]["draClasses"] == [
        {
            "kind": "mig",
            "profile": "1g.5gb",
            "deviceClass": "mig1g-mig-1g.5gb.gpupools.io",
            "claimTemplate": "mig1g-mig-1g.5gb",
            "namespace": NAMESPACE,
            "extendedResourceName": None,
        }
    ]


def test_eks_all_balanced_stack_creates_one_class_per_profile_selecting_16_8_8(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        "aws",
        {"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}},
        "1.36",
        namespace="gpu-dra",
    )
    classes = {c["name"]: c for c in plan_of_type(plan, DEVICE_CLASS)}
    templates = {t["name"]: t for t in plan_of_type(plan, CLAIM_TEMPLATE)}
    profiles = {"1g.5gb": 16, "2g.10gb": 8, "3g.20gb": 8}
    assert set(classes) == {f"balanced-mig-{p}.gpupools.io" for p in profiles}
    assert set(templates) == {f"balanced-mig-{p}" for p in profiles}
    slices = [node_slice("node-0", 8, "NVIDIA A100 40GB", 40, {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1})]
    for profile, count in profiles.items():
        device_class = classes[f"balanced-mig-{profile}.gpupools.io"]
        picked = _selected(device_class, slices)
        assert len(picked) == count and all(f"-mig-{profile.replace('.', '')}-" in name for name in picked)
        # 1.36: DRAExtendedResource is beta, so pods asking for the device plugin's resource name keep working.
        assert device_class["inputs"]["spec"]["extendedResourceName"] == f"nvidia.com/mig-{profile}"
        assert templates[f"balanced-mig-{profile}"]["inputs"]["metadata"]["namespace"] == "gpu-dra"
    outputs = plan.outputs["gpuPools"]["balanced"]["draClasses"]
    assert sorted(o["claimTemplate"] for o in outputs) == sorted(templates)


def test_stacks_without_the_dra_driver_create_no_dra_objects(tmp_path: Path) -> None:
    plan = plan_config(
        tmp_path,
        {
            "gpupools:cloud": "aws",
            "gpupools:cluster": {"name": "c", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
            "gpupools:gpuPools": [{"name": "whole", "size": "g6.12xlarge"}],
            "gpupools:gpuSoftware": {"installer": "device-plugin", "migStrategy": "none"},
        },
        "plain",
    )
    assert not [r for r in plan.resources if r["type"].startswith("kubernetes:resource.k8s.io/")]
    assert "draClasses" not in plan.outputs["gpuPools"]["whole"]


def test_platform_output_names_the_classes_and_templates_per_pool() -> None:
    import pulumi

    from gpupools.platform import GpuPlatform
    from support.resources import run_mocked

    def program() -> None:
        platform = GpuPlatform(
            "gp",
            {
                "cloud": "aws",
                "cluster": {
                    "name": "c",
                    "region": "us-east-1",
                    "kubernetes_version": "1.34",
                    "system_pool": {"size": "m6i.large"},
                },
                "gpu_pools": [{"name": "whole", "size": "g6.12xlarge"}],
                "gpu_software": {"installer": "dra-driver"},
            },
        )
        pulumi.export("dra", platform.dra_classes)

    run = run_mocked(program)
    assert run.outputs["dra"] == {
        "whole": [
            {
                "kind": "gpu",
                "profile": None,
                "deviceClass": "whole-gpu.gpupools.io",
                "claimTemplate": "whole-gpu",
                "namespace": NAMESPACE,
                "extendedResourceName": None,
            }
        ]
    }
    (device_class,) = [r for r in run.resources if r.type == DEVICE_CLASS]
    assert device_class.name == "gp-whole-gpu.gpupools.io"  # a second platform's children carry its name
    assert device_class.inputs["metadata"] == {"name": "whole-gpu.gpupools.io"}
