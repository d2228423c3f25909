"""Per-cloud config rules (azure_rules, aws_rules): each refusal at its field, naming what is allowed.

Expected values come from the clouds' and NVIDIA's documents cited in docs/sources.md.
"""

from __future__ import annotations

import pytest

from gpupools.resolve.stack_loader import load_stack

from support.base_configs import AWS, AZURE, config, messages_at

VPC, SUBNET, SUBNET_B = "vpc-0123456789abcdef0", "subnet-0123456789abcdef0", "subnet-89abcdef"


# --- 1. Bottlerocket ships its own device plugin: refused, with what to use --------------------------------------
def test_bottlerocket_is_refused_with_the_alternative():
    (message,) = messages_at(config(AWS, {"amiType": "BOTTLEROCKET_x86_64_NVIDIA"}), "gpupools:gpuPools[0].amiType")
    assert "device plugin" in message and "AL2023_x86_64_NVIDIA" in message


# --- 2. driver: operator on aws, and the AMI that only made sense with it -----------------------------------------
def test_operator_driver_is_refused_on_aws():
    (message,) = messages_at(config(AWS, gpuSoftware={"driver": "operator"}), "gpupools:gpuSoftware.driver")
    assert "Amazon Linux" in message and "preinstalled" in message


def test_al2023_standard_is_refused_with_the_reason():
    (message,) = messages_at(config(AWS, {"amiType": "AL2023_x86_64_STANDARD"}), "gpupools:gpuPools[0].amiType")
    assert "no NVIDIA driver" in message and "AL2023_x86_64_NVIDIA" in message


def test_operator_driver_stays_allowed_on_azure():
    raw = config(
        AZURE,
        {"mig": {"layout": "all-balanced"}},
        gpuSoftware={"installer": "gpu-operator", "driver": "operator", "migStrategy": "mixed"},
    )
    assert load_stack(raw).pools[0].mig.applied_by == "operator"


# --- 3. subnets without their VPC, and id syntax --------------------------------------------------------------------
def test_subnets_require_the_vpc():
    (message,) = messages_at(config(AWS, cluster={"subnetIds": [SUBNET, SUBNET_B]}), "gpupools:cluster.vpcId")
    assert "default VPC" in message


def test_vpc_and_subnets_are_accepted_together():
    stack = load_stack(config(AWS, cluster={"subnetIds": [SUBNET, SUBNET_B], "vpcId": VPC}))
    assert stack.config.cluster.vpc_id == VPC


@pytest.mark.parametrize("bad", ["vpc-123", "vpc-0123456789ABCDEF0", "vpc-0123456789abcdef01", "VPC-01234567"])
def test_vpc_id_syntax(bad):
    messages_at(config(AWS, cluster={"subnetIds": [SUBNET], "vpcId": bad}), "gpupools:cluster.vpcId")


@pytest.mark.parametrize("bad", ["subnet-123", "sn-0123456789abcdef0", "subnet-0123456789abcdef"])
def test_subnet_id_syntax(bad):
    messages_at(config(AWS, cluster={"subnetIds": [bad], "vpcId": VPC}), "gpupools:cluster.subnetIds")


def test_vpc_is_aws_only():
    messages_at(config(AZURE, cluster={"vpcId": VPC}), "gpupools:cluster.vpcId")


# --- 5. OS SKUs -----------------------------------------------------------------------------------------------------
def test_ubuntu2404_is_refused_because_the_pinned_sdk_lacks_it():
    (message,) = messages_at(config(AZURE, {"osSku": "Ubuntu2404"}), "gpupools:gpuPools[0].osSku")
    assert "azure-native" in message and "Ubuntu2204" in message


def test_azure_linux_refused_on_a100_h100_h200_sizes_without_mig():
    for size in ("Standard_NC24ads_A100_v4", "Standard_ND96isr_H100_v5", "Standard_ND96isr_H200_v5"):
        raw = config(AZURE, {"size": size, "osSku": "AzureLinux3"})
        del raw["gpupools:gpuPools"][0]["mig"]
        (message,) = messages_at(raw, "gpupools:gpuPools[0].osSku")
        assert "Azure Linux" in message and "Ubuntu" in message


def test_azure_linux3_is_offered_for_other_gpus():
    raw = config(AZURE, {"name": "tfour", "size": "Standard_NC64as_T4_v3", "osSku": "AzureLinux3"})
    del raw["gpupools:gpuPools"][0]["mig"]
    assert load_stack(raw).pools[0].config.os_sku == "AzureLinux3"


def test_gpu_operator_needs_one_os_sku_across_the_cluster():
    raw = config(
        AZURE,
        {"name": "tfour", "size": "Standard_NC64as_T4_v3", "osSku": "Ubuntu2204"},
        gpuSoftware={"installer": "gpu-operator", "version": "v26.7.0"},
    )
    del raw["gpupools:gpuPools"][0]["mig"]
    (message,) = messages_at(raw, "gpupools:gpuPools[0].osSku")
    assert "system pool" in message and "Ubuntu" in message


# --- 8. capacity knobs, cloud-scoped ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key, value",
    [("maxPods", 100), ("availabilityZones", ["1"]), ("priority", "Spot"), ("capacityReservationGroupId", "x")],
)
def test_azure_keys_are_refused_on_aws(key, value):
    (message,) = messages_at(config(AWS, {key: value}), f"gpupools:gpuPools[0].{key}")
    assert "azure" in message


@pytest.mark.parametrize(
    "key, value",
    [("capacityType", "SPOT"), ("efa", True), ("subnetIds", [SUBNET]), ("amiType", "AL2023_x86_64_NVIDIA")],
)
def test_aws_keys_are_refused_on_azure(key, value):
    (message,) = messages_at(config(AZURE, {key: value}), f"gpupools:gpuPools[0].{key}")
    assert "aws" in message


def test_capacity_block_needs_a_reservation():
    messages_at(
        config(AWS, {"capacityType": "CAPACITY_BLOCK", "subnetIds": [SUBNET]}),
        "gpupools:gpuPools[0].capacityReservation",
    )


def test_reservation_needs_pool_subnets():
    messages_at(config(AWS, {"capacityReservation": "cr-0123456789abcdef0"}), "gpupools:gpuPools[0].subnetIds")


@pytest.mark.parametrize(
    "reservation", ["cr-0123456789abcdef0", "arn:aws:resource-groups:us-east-1:123456789012:group/p4d-block"]
)
def test_reservations_accepted(reservation):
    stack = load_stack(config(AWS, {"capacityReservation": reservation, "subnetIds": [SUBNET]}))
    assert not any("scarce" in warning for warning in stack.warnings)


@pytest.mark.parametrize(
    "reservation",
    [
        "cr-0123",
        "arn:aws:ec2:us-east-1:123456789012:capacity-reservation/cr-1",
        "arn:aws:resource-groups:us-west-2:123456789012:group/p4d-block",
    ],
)
def test_reservation_syntax_and_region(reservation):
    messages_at(
        config(AWS, {"capacityReservation": reservation, "subnetIds": [SUBNET]}),
        "gpupools:gpuPools[0].capacityReservation",
    )


EFA_NETWORK = {"subnetIds": [SUBNET]}
CLUSTER_NETWORK = {"subnetIds": [SUBNET, SUBNET_B], "vpcId": VPC}


def test_efa_only_on_efa_capable_sizes():
    efa = config(AWS, {"efa": True, **EFA_NETWORK}, cluster=CLUSTER_NETWORK)
    assert load_stack(efa).pools[0].size.efa_interfaces == 4  # p4d.24xlarge: 4 EFA
    raw = config(
        AWS,
        {"name": "gfive", "size": "g5.xlarge", "efa": True, **EFA_NETWORK},
        cluster=CLUSTER_NETWORK,
        gpuSoftware={"installer": "device-plugin", "migStrategy": "none"},
    )
    del raw["gpupools:gpuPools"][0]["mig"]
    (message,) = messages_at(raw, "gpupools:gpuPools[0].efa")
    assert "g5.xlarge" in message


@pytest.mark.parametrize("subnets", [[], [SUBNET, SUBNET_B]])
def test_efa_needs_exactly_one_subnet_of_the_pools_own(subnets):
    raw = config(AWS, {"efa": True, "subnetIds": subnets}, cluster=CLUSTER_NETWORK)
    (message,) = messages_at(raw, "gpupools:gpuPools[0].subnetIds")
    assert "exactly one subnet" in message and "availability zone" in message


def test_efa_pools_warn_that_no_pod_can_request_the_interfaces_without_the_device_plugin():
    stack = load_stack(config(AWS, {"efa": True, **EFA_NETWORK}, cluster=CLUSTER_NETWORK))
    (warning,) = [w for w in stack.warnings if "EFA" in w]
    assert "aws-efa-k8s-device-plugin" in warning and "vpc.amazonaws.com/efa" in warning
    assert "nvidia.com/gpu" in warning  # the GPU taint the plugin must tolerate
    assert not [w for w in load_stack(config(AWS)).warnings if "EFA" in w]


def test_efa_needs_the_clusters_own_vpc():
    (message,) = messages_at(config(AWS, {"efa": True, **EFA_NETWORK}), "gpupools:gpuPools[0].efa")
    assert "vpcId" in message and "public IP" in message


def test_scarce_pool_without_reservation_or_spot_warns():
    assert any("p4d.24xlarge" in w for w in load_stack(config(AWS)).warnings)
    assert not any("scarce" in w for w in load_stack(config(AWS, {"capacityType": "SPOT"})).warnings)


def test_azure_zones_and_reservation_group():
    group = (
        "/subscriptions/00000000-1111-2222-3333-444444444444/resourceGroups/gpu-rg/providers/"
        "Microsoft.Compute/capacityReservationGroups/a100-crg"
    )
    pool = load_stack(config(AZURE, {"availabilityZones": ["1", "2"], "capacityReservationGroupId": group})).pools[0]
    assert pool.config.availability_zones == ["1", "2"]
    messages_at(config(AZURE, {"availabilityZones": ["4"]}), "gpupools:gpuPools[0].availabilityZones[0]")
    messages_at(config(AZURE, {"availabilityZones": [1]}), "gpupools:gpuPools[0].availabilityZones[0]")
    messages_at(
        config(AZURE, {"capacityReservationGroupId": "/subscriptions/x/crg"}),
        "gpupools:gpuPools[0].capacityReservationGroupId",
    )


def test_spot_settings():
    pool = load_stack(config(AZURE, {"priority": "Spot", "spotMaxPrice": -1})).pools[0]
    assert pool.config.resolved_eviction_policy == "Delete"  # AKS's default eviction policy
    for key, value in (("evictionPolicy", "Deallocate"), ("spotMaxPrice", 1.5)):
        messages_at(config(AZURE, {key: value}), f"gpupools:gpuPools[0].{key}")
    for price in (0, -2, 0.123456):
        messages_at(config(AZURE, {"priority": "Spot", "spotMaxPrice": price}), "gpupools:gpuPools[0].spotMaxPrice")
    group = (
        "/subscriptions/00000000-1111-2222-3333-444444444444/resourceGroups/rg/providers/"
        "Microsoft.Compute/capacityReservationGroups/crg"
    )
    messages_at(
        config(AZURE, {"priority": "Spot", "capacityReservationGroupId": group}),
        "gpupools:gpuPools[0].capacityReservationGroupId",
    )
