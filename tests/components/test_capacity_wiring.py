"""Capacity knobs reach the clouds' APIs: component inputs under mocks, in the providers' wire names.

Expected values are the clouds' documented names and rules: AKS's Azure CNI Overlay profile and agent
pool fields (learn.microsoft.com/azure/aks), EKS's launch template requirements for Capacity Blocks and
EFA (docs.aws.amazon.com/eks), not values read back from the code under test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.resources import named as _named, run_mocked as _run
from support.stack_files import plan_config

CRG = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/capacity-rg/providers/"
    "Microsoft.Compute/capacityReservationGroups/a100-crg"
)
CAPACITY_BLOCK = "cr-02168da1478b509e0"  # the reservation id in EKS's Capacity Blocks example
GROUP_ARN = "arn:aws:resource-groups:us-east-1:123456789012:group/gpu-reservations"


# --- AKS ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def aks_run():
    from gpupools.azure import AksCluster, AksGpuPool

    def program():
        AksCluster(
            "gpu-dev",
            {
                "name": "gpu-dev",
                "resource_group_name": "gpu-dev-rg",
                "location": "southcentralus",
                "system_pool_max_pods": 60,
            },
        )
        AksGpuPool(
            "spot",
            {
                "cluster_name": "gpu-dev",
                "resource_group_name": "gpu-dev-rg",
                "pool_name": "spot",
                "vm_size": "Standard_NC24ads_A100_v4",
                "count": 2,
                "max_pods": 250,
                "availability_zones": ["1", "2"],
                "scale_set_priority": "Spot",
                "scale_set_eviction_policy": "Delete",
                "spot_max_price": -1,
                "node_taints": ["nvidia.com/gpu=present:NoSchedule"],
            },
        )
        # Spot VMs cannot use a capacity reservation group: the reservation goes on a Regular pool.
        AksGpuPool(
            "reserved",
            {
                "cluster_name": "gpu-dev",
                "resource_group_name": "gpu-dev-rg",
                "pool_name": "reserved",
                "vm_size": "Standard_NC24ads_A100_v4",
                "count": 1,
                "capacity_reservation_group_id": CRG,
            },
        )
        AksGpuPool(
            "regular",
            {
                "cluster_name": "gpu-dev",
                "resource_group_name": "gpu-dev-rg",
                "pool_name": "regular",
                "vm_size": "Standard_ND96asr_v4",
                "count": 1,
                "gpu_instance_profile": "MIG1g",
            },
        )

    return _run(program, project="capacity")


def test_created_aks_cluster_uses_azure_cni_overlay(aks_run) -> None:
    managed = _named(aks_run, "gpu-dev-aks").inputs
    # Azure CNI Overlay: plugin azure in overlay mode; 10.244.0.0/16 is AKS's documented default pod CIDR.
    profile = managed["networkProfile"]  # the SDK adds its own defaults (serviceCidr, dnsServiceIP, ...)
    assert {k: profile[k] for k in ("networkPlugin", "networkPluginMode", "podCidr")} == {
        "networkPlugin": "azure",
        "networkPluginMode": "overlay",
        "podCidr": "10.244.0.0/16",
    }
    (system,) = managed["agentPoolProfiles"]
    assert system["maxPods"] == 60


def test_aks_pool_capacity_knobs_in_wire_names(aks_run) -> None:
    inputs = _named(aks_run, "spot-pool").inputs
    assert inputs["maxPods"] == 250
    assert inputs["availabilityZones"] == ["1", "2"]
    # the SDK's irregular camelCase, like osSKU
    assert _named(aks_run, "reserved-pool").inputs["capacityReservationGroupID"] == CRG
    assert (inputs["scaleSetPriority"], inputs["scaleSetEvictionPolicy"], inputs["spotMaxPrice"]) == (
        "Spot",
        "Delete",
        -1,
    )
    # AKS adds kubernetes.azure.com/scalesetpriority=spot:NoSchedule to Spot nodes itself; we send only ours.
    assert inputs["nodeTaints"] == ["nvidia.com/gpu=present:NoSchedule"]


def test_regular_aks_pool_leaves_spot_fields_and_zones_unset(aks_run) -> None:
    inputs = _named(aks_run, "regular-pool").inputs
    for key in (
        "scaleSetPriority",
        "scaleSetEvictionPolicy",
        "spotMaxPrice",
        "availabilityZones",
        "capacityReservationGroupID",
        "maxPods",
    ):
        assert key not in inputs, key


def test_settings_aks_fixes_at_creation_replace_the_pool(aks_run) -> None:
    options = _named(aks_run, "spot-pool").options
    # learn.microsoft.com/azure/aks: VM size and max pods (create-node-pools), zones (reliability), Spot
    # priority, max price and eviction policy (spot-node-pool), the GPU instance profile (gpu-multi-instance).
    documented = {
        "vmSize",
        "maxPods",
        "availabilityZones",
        "scaleSetPriority",
        "spotMaxPrice",
        "scaleSetEvictionPolicy",
        "gpuInstanceProfile",
    }
    assert documented <= set(options["replaceOnChanges"])
    # Updated in place by AKS: the OS SKU (upgrade-os-version) and the reservation group (--crg-id on update).
    assert not {"osSKU", "capacityReservationGroupID", "count", "nodeTaints"} & set(options["replaceOnChanges"])
    assert options["deleteBeforeReplace"] is True


def test_immutable_tables_cite_a_source_for_each_field() -> None:
    from gpupools.catalog.fixed_fields import AKS_AGENT_POOL, EKS_NODE_GROUP, replace_on_changes

    for table in (AKS_AGENT_POOL, EKS_NODE_GROUP):
        for wire_name, fact in table.items():
            assert fact.source.startswith("https://") and fact.why, wire_name
    assert replace_on_changes(AKS_AGENT_POOL) == sorted(AKS_AGENT_POOL)


# --- EKS ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def eks_run():
    from gpupools.aws import EksCluster, EksGpuNodeGroup

    def program():
        cluster = EksCluster(
            "gpu-eks",
            {
                "name": "gpu-eks",
                "vpc_id": "vpc-0123456789abcdef0",
                "subnet_ids": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"],
            },
        )
        common = {"cluster": cluster.cluster, "node_role": cluster.node_role, "desired_size": 2}
        EksGpuNodeGroup(
            "block",
            {
                **common,
                "node_group_name": "block",
                "instance_type": "p5.48xlarge",
                "capacity_type": "CAPACITY_BLOCK",
                "capacity_reservation": CAPACITY_BLOCK,
                "disk_size_gb": 512,
                "subnet_ids": ["subnet-0123456789abcdef0"],
                "efa": True,
                "efa_interfaces": 32,
            },
        )
        EksGpuNodeGroup(
            "odcr",
            {
                **common,
                "node_group_name": "odcr",
                "instance_type": "p4d.24xlarge",
                "capacity_reservation": GROUP_ARN,
                "disk_size_gb": 256,
            },
        )
        EksGpuNodeGroup(
            "spot",
            {
                **common,
                "node_group_name": "spot",
                "instance_type": "g6.12xlarge",
                "capacity_type": "SPOT",
                "disk_size_gb": 128,
            },
        )

    return _run(program, project="capacity")


def test_eks_cluster_gets_the_vpc_with_its_subnets(eks_run) -> None:
    inputs = _named(eks_run, "gpu-eks-eks").inputs
    assert inputs["vpcId"] == "vpc-0123456789abcdef0"
    assert inputs["subnetIds"] == ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]


def test_capacity_block_node_group_follows_the_eks_procedure(eks_run) -> None:
    group = _named(eks_run, "block-ng").inputs
    template = _named(eks_run, "block-lt")
    assert template.parent == _named(eks_run, "block").urn  # a child of the component
    lt = template.inputs
    # EKS "Create a managed node group with Capacity Blocks for ML": MarketType capacity-block, the block's
    # reservation id as CapacityReservationTarget, InstanceType in the template, capacity-type CAPACITY_BLOCK.
    assert lt["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert lt["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": CAPACITY_BLOCK}
    }
    assert lt["instanceType"] == "p5.48xlarge"
    assert group["capacityType"] == "CAPACITY_BLOCK"
    # An instance type in the template forbids one on the node group; a template forbids diskSize there.
    assert "instanceTypes" not in group and "diskSize" not in group
    assert group["launchTemplate"]["id"] == "block-lt-id"
    assert group["subnetIds"] == ["subnet-0123456789abcdef0"]
    (disk,) = lt["blockDeviceMappings"]
    assert disk == {
        "deviceName": "/dev/xvda",
        "ebs": {"volumeSize": 512, "volumeType": "gp3", "deleteOnTermination": "true"},
    }
    # IMDSv2 with a hop limit of 2, as EKS asks of custom templates whose pods use the metadata service.
    assert lt["metadataOptions"]["httpPutResponseHopLimit"] == 2


def test_efa_node_group_has_a_cluster_placement_group_and_one_efa_per_card(eks_run) -> None:
    lt = _named(eks_run, "block-lt").inputs
    placement = _named(eks_run, "block-pg")
    assert placement.inputs["strategy"] == "cluster"
    assert lt["placement"] == {"groupName": "block-pg"}
    interfaces = lt["networkInterfaces"]
    assert len(interfaces) == 32  # p5.48xlarge: 32 EFA network cards
    assert [i["networkCardIndex"] for i in interfaces] == list(range(32))
    # EC2: the primary interface has device index 0, every further EFA device index 1.
    assert [i["deviceIndex"] for i in interfaces] == [0] + [1] * 31
    assert {i["interfaceType"] for i in interfaces} == {"efa"}
    efa_group = _named(eks_run, "block-efa")
    # EFA needs a security group allowing all traffic to and from itself.
    for rules in (efa_group.inputs["ingress"], efa_group.inputs["egress"]):
        assert rules == [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}]
    # The template's groups replace EKS's cluster security group, so each interface carries it too.
    for interface in interfaces:
        assert len(interface["securityGroups"]) == 2 and "block-efa-id" in interface["securityGroups"]


def test_reservation_group_arn_and_plain_capacity_types(eks_run) -> None:
    lt = _named(eks_run, "odcr-lt").inputs
    assert lt["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationResourceGroupArn": GROUP_ARN}
    }
    assert "instanceMarketOptions" not in lt and "instanceType" not in lt and "networkInterfaces" not in lt
    group = _named(eks_run, "odcr-ng").inputs
    assert group["instanceTypes"] == ["p4d.24xlarge"] and "diskSize" not in group and "capacityType" not in group
    spot = _named(eks_run, "spot-ng").inputs
    assert spot["capacityType"] == "SPOT" and spot["diskSize"] == 128 and "launchTemplate" not in spot
    assert not [r for r in eks_run.resources if r.name == "spot-lt"]


# --- The program -------------------------------------------------------------------------------------------------


def _plan(tmp_path: Path, config: dict[str, Any]):
    return plan_config(tmp_path, {f"gpupools:{k}": v for k, v in config.items()}, "knobs")


def _resource(plan, type_: str, **inputs: Any) -> dict[str, Any]:
    return next(
        r["inputs"]
        for r in plan.resources
        if r["type"] == type_ and all(r["inputs"].get(k) == v for k, v in inputs.items())
    )


def test_program_wires_aks_knobs_from_config(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        {
            "cloud": "azure",
            "cluster": {
                "name": "gpu",
                "resourceGroup": "rg",
                "location": "westus",
                "systemPool": {"size": "Standard_D4s_v5"},
            },
            "gpuPools": [
                {
                    "name": "spot",
                    "size": "Standard_NC24ads_A100_v4",
                    "count": 1,
                    "maxPods": 200,
                    "availabilityZones": ["1"],
                    "priority": "Spot",
                    "evictionPolicy": "Delete",
                    "spotMaxPrice": -1,
                }
            ],
            "gpuSoftware": {"installer": "device-plugin", "migStrategy": "none"},
        },
    )
    pool = _resource(plan, "azure-native:containerservice:AgentPool")  # the only one; its cloud name has a suffix
    assert pool["nodeLabels"]["gpupools.io/pool"] == "spot"
    assert (pool["maxPods"], pool["availabilityZones"], pool["scaleSetPriority"]) == (200, ["1"], "Spot")
    assert not [t for t in pool["nodeTaints"] if t.startswith("kubernetes.azure.com/")]
    cluster = _resource(plan, "azure-native:containerservice:ManagedCluster")
    assert cluster["networkProfile"]["networkPluginMode"] == "overlay"


def test_program_wires_eks_vpc_and_efa_from_config(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        {
            "cloud": "aws",
            "cluster": {
                "name": "gpu",
                "region": "us-east-1",
                "systemPool": {"size": "m6i.large"},
                "vpcId": "vpc-0123456789abcdef0",
                "subnetIds": ["subnet-0123456789abcdef0"],
            },
            "gpuPools": [
                {
                    "name": "train",
                    "size": "p4d.24xlarge",
                    "count": 2,
                    "efa": True,
                    "capacityReservation": "cr-0123456789abcdef0",
                    "subnetIds": ["subnet-0123456789abcdef0"],
                }
            ],
            "gpuSoftware": {"installer": "device-plugin", "migStrategy": "none"},
        },
    )
    assert _resource(plan, "eks:index:Cluster")["vpcId"] == "vpc-0123456789abcdef0"
    lt = _resource(plan, "aws:ec2/launchTemplate:LaunchTemplate")
    assert len(lt["networkInterfaces"]) == 4  # p4d.24xlarge: 4 EFA interfaces
    assert lt["capacityReservationSpecification"]["capacityReservationTarget"] == {
        "capacityReservationId": "cr-0123456789abcdef0"
    }


def test_release_in_kube_system_creates_no_namespace(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        {
            "cloud": "aws",
            "cluster": {"name": "gpu", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
            "gpuPools": [{"name": "g5", "size": "g5.xlarge"}],
            "gpuSoftware": {"installer": "device-plugin", "migStrategy": "none", "namespace": "kube-system"},
        },
    )
    assert not [r for r in plan.resources if r["type"] == "kubernetes:core/v1:Namespace"]
    assert _resource(plan, "kubernetes:helm.sh/v3:Release")["namespace"] == "kube-system"
