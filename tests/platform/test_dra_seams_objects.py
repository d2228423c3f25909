"""Issue 24's test stacks planned offline, asserting on what the engine receives: the DRA chart's Release for the
p4d all-balanced stack (the kubelet plugin waits for the MIG manager), the shared ResourceClaims of the
time-slicing and MPS stacks (the driver's GpuConfig, several pods per claim), and the cluster-autoscaler Release of
the 1.34 DRA stack (its DRA switch on).

Expected figures are published ones: Standard_NC24ads_A100_v4 has one A100 80GB, g5.xlarge one A10G (24 GB),
p4d.24xlarge eight A100 40GB.
"""

from __future__ import annotations

from pathlib import Path

from support.dra_stacks import AUTOSCALED_134, MPS, P4D_BALANCED, TIME_SLICING, pulumi_config
from support.resources import plan_named, plan_of_type
from support.stack_files import plan_config

CLAIM = "kubernetes:resource.k8s.io/v1:ResourceClaim"
CLAIM_TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
RELEASE = "kubernetes:helm.sh/v3:Release"


def _releases(plan) -> dict[str, dict]:
    return {r["name"]: r for r in plan_of_type(plan, RELEASE)}


def test_p4d_balanced_registers_the_plugin_as_a_mig_manager_client(tmp_path: Path) -> None:
    plan = plan_config(tmp_path, pulumi_config(P4D_BALANCED), "p4d")
    values = plan_named(plan, "dra-driver-release")["inputs"]["values"]
    plugin = values["kubeletPlugin"]
    assert plugin["nodeSelector"] == {"nvidia.com/gpu.deploy.client": "true"}
    terms = plugin["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    waits = [
        t
        for t in terms
        if {"key": "nvidia.com/mig.config.state", "operator": "In", "values": ["success"]} in t["matchExpressions"]
    ]
    assert len(waits) == 1
    assert {"key": "gpupools.io/pool", "operator": "In", "values": ["balanced"]} in waits[0]["matchExpressions"]
    assert not plan_of_type(plan, CLAIM)  # no sharing: claim templates only


def test_time_slicing_pool_gets_one_shared_claim_per_gpu_with_the_drivers_config(tmp_path: Path) -> None:
    plan = plan_config(tmp_path, pulumi_config(TIME_SLICING), "ts")
    claims = plan_of_type(plan, CLAIM)
    assert [c["name"] for c in claims] == ["shared-gpu-shared-0"]  # 1 node x 1 A100
    spec = claims[0]["inputs"]["spec"]
    assert spec["devices"]["requests"] == [{"name": "slice", "exactly": {"deviceClassName": "shared-gpu.gpupools.io"}}]
    assert spec["devices"]["config"] == [
        {
            "requests": ["slice"],
            "opaque": {
                "driver": "gpu.nvidia.com",
                "parameters": {
                    "apiVersion": "resource.nvidia.com/v1beta1",
                    "kind": "GpuConfig",
                    "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Default"}},
                },
            },
        }
    ]
    (template,) = plan_of_type(plan, CLAIM_TEMPLATE)
    assert template["inputs"]["spec"]["spec"]["devices"]["config"] == spec["devices"]["config"]
    (outputs,) = plan.outputs["gpuPools"]["shared"]["draClasses"]
    assert outputs["sharedClaims"] == ["shared-gpu-shared-0"] and outputs["podsPerClaim"] == 4
    assert _releases(plan)["dra-driver-release"]["inputs"]["values"]["featureGates"] == {"TimeSlicingSettings": True}


def test_mps_pool_splits_each_gpu_between_its_replicas_and_warns_of_the_drivers_own_daemon(tmp_path: Path) -> None:
    plan = plan_config(tmp_path, pulumi_config(MPS), "mps")
    (claim,) = plan_of_type(plan, CLAIM)
    parameters = claim["inputs"]["spec"]["devices"]["config"][0]["opaque"]["parameters"]
    # A10G: 24 GB; 4 clients each get a quarter of the threads and 6144 MiB of pinned memory.
    assert parameters == {
        "apiVersion": "resource.nvidia.com/v1beta1",
        "kind": "GpuConfig",
        "sharing": {
            "strategy": "MPS",
            "mpsConfig": {"defaultActiveThreadPercentage": 25, "defaultPinnedDeviceMemoryLimit": "6144Mi"},
        },
    }
    hostpid = [w for w in plan.warnings if "hostPID" in w]
    assert hostpid == [
        "pool mps: MPS: the DRA driver starts one MPS control daemon per shared claim, a Deployment on the claim's "
        "node that runs privileged with hostPID (allowPrivilegedHostPID)"
    ]  # not the device plugin's DaemonSet "on every node of the pool", which a DRA stack never deploys
    assert "nvidia-device-plugin" not in " ".join(_releases(plan))


def test_the_134_dra_stack_turns_the_autoscaler_dra_handling_on(tmp_path: Path) -> None:
    plan = plan_config(tmp_path, pulumi_config(AUTOSCALED_134), "ca")
    (release,) = [r for r in plan_of_type(plan, RELEASE) if r["inputs"]["chart"] == "cluster-autoscaler"]
    values = release["inputs"]["values"]
    assert values["image"]["tag"].startswith("v1.34.")  # an image below 1.35
    assert values["extraArgs"]["enable-dynamic-resource-allocation"] is True


def test_a_newer_driver_chart_pinned_gets_the_same_values(tmp_path: Path) -> None:
    """Chart 0.4.1 stays the default; pinning 0.5.0 (released 2026-08-19) plans the same values at that version."""
    newer = {**P4D_BALANCED, "gpuSoftware": {**P4D_BALANCED["gpuSoftware"], "version": "0.5.0"}}
    default = plan_named(plan_config(tmp_path, pulumi_config(P4D_BALANCED), "default"), "dra-driver-release")
    pinned = plan_named(plan_config(tmp_path, pulumi_config(newer), "newer"), "dra-driver-release")
    assert default["inputs"]["version"] == "0.4.1" and pinned["inputs"]["version"] == "0.5.0"
    assert pinned["inputs"]["values"] == default["inputs"]["values"]
