"""Sharing through the DRA driver (issue 24, item 2), pure: the opaque config each device kind takes (the driver's
api/nvidia.com/resource/v1beta1 at v0.4.1: GpuConfig for whole GPUs, MigDeviceConfig for MIG devices, whose
sharing has no timeSlicingConfig), and ``slice_workload`` pointing the pods of a sharing pool at a shared
ResourceClaim instead of a per-pod template.
"""

from __future__ import annotations

import pytest

from gpupools.config import ConfigError
from gpupools.domain.dra import DraClass, DraDevice, DraSharing, pool_classes
from gpupools.domain.workloads import WorkloadError, slice_workload
from gpupools.resolve.stack_loader import load_stack
from support.dra_stacks import MPS, P4D_BALANCED, TIME_SLICING


def test_mps_on_a_mig_device_is_a_mig_device_config_without_time_slicing_settings() -> None:
    device = DraDevice("mig", "3g.20gb", 8, 1, 20, DraSharing("MPS", 2))
    (config,) = DraClass("p", device, None, "ns", 1).config()
    parameters = config["opaque"]["parameters"]
    assert parameters["kind"] == "MigDeviceConfig"
    assert parameters["sharing"] == {
        "strategy": "MPS",
        "mpsConfig": {"defaultActiveThreadPercentage": 50, "defaultPinnedDeviceMemoryLimit": "10240Mi"},
    }


def test_time_slicing_a_mig_device_is_never_emitted() -> None:
    device = DraDevice("mig", "1g.5gb", 8, 1, 5, DraSharing("TimeSlicing", 2))
    with pytest.raises(ValueError, match="MIG"):
        DraClass("p", device, None, "ns", 1).config()


def test_a_sharing_pool_workload_references_a_shared_claim_not_a_template() -> None:
    stack = load_stack(TIME_SLICING)
    workload = slice_workload(stack, "shared")
    assert workload.resource_claims == [{"name": "gpu", "resourceClaimName": "shared-gpu-shared-0"}]
    assert workload.claim_template is None
    assert workload.resource_claim is not None and workload.resource_claim["kind"] == "ResourceClaim"
    assert workload.to_json()["resourceClaim"]["metadata"]["name"] == "shared-gpu-shared-0"
    # Every pod of the pool joining claim 0 gets the very same claim: they share one GPU.
    assert slice_workload(stack, "shared").resource_claims == workload.resource_claims


def test_a_sharing_pool_refuses_several_devices_and_claims_it_does_not_have() -> None:
    stack = load_stack(MPS)
    with pytest.raises(WorkloadError, match="ask for 1"):
        slice_workload(stack, "mps", count=2)
    with pytest.raises(WorkloadError, match="shared_claim must be 0..0"):
        slice_workload(stack, "mps", shared_claim=1)


def test_pools_without_sharing_keep_one_claim_per_pod() -> None:
    stack = load_stack(P4D_BALANCED)
    workload = slice_workload(stack, "balanced", "1g.5gb")
    assert workload.resource_claim is None
    assert workload.resource_claims == [{"name": "gpu", "resourceClaimTemplateName": "balanced-mig-1g.5gb"}]
    assert all(cls.shared_claim_count == 0 and not cls.config() for cls in pool_classes(stack, "balanced"))


def test_mps_on_a_mig_pool_is_allowed_under_dra_only() -> None:
    mps = {"mps": {"replicas": 2, "allowPrivilegedHostPID": True}}
    pool = {**P4D_BALANCED["gpuPools"][0], "sharing": mps}
    dra = load_stack(
        {
            **P4D_BALANCED,
            "gpuPools": [pool],
            "gpuSoftware": {"installer": "dra-driver", "draAlphaGates": ["MPSSupport"]},
        }
    )
    kinds = {cls.config()[0]["opaque"]["parameters"]["kind"] for cls in pool_classes(dra, "balanced")}
    assert kinds == {"MigDeviceConfig"}
    # 8 GPUs x (2x 1g.5gb): one shared claim per device.
    assert {cls.device.profile: cls.shared_claim_count for cls in pool_classes(dra, "balanced")}["1g.5gb"] == 16
    with pytest.raises(ConfigError, match="MPS shares full GPUs only"):
        load_stack({**P4D_BALANCED, "gpuPools": [pool], "gpuSoftware": {"installer": "gpu-operator"}})
