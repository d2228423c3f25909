"""Karpenter pools as EC2NodeClass, NodePool and NodeOverlay (issue 38), each validated against the real v1.14.1 CRDs:
their ``openAPIV3Schema`` with unknown fields refused, and every create-time CEL rule evaluated by cel-python.

Expected figures come from outside the code: an A100-40GB holds 7x 1g.5gb and a p4d.24xlarge has 8 of them
(NVIDIA's MIG user guide, mig-profiles.md); a g6e.12xlarge has 4 L40S GPUs (EC2 accelerated computing specs).
"""

from __future__ import annotations

import dataclasses

import pytest

from gpupools.domain.node_layout import NodeLayout
from gpupools.domain.karpenter_objects import (
    KarpenterObjectError,
    NodeClassInputs,
    ec2_node_class,
    karpenter_objects,
    needs_node_overlay,
    node_overlay,
    node_pool,
    nodepool_weights,
)
from gpupools.resolve.stack_loader import load_stack
from support import karpenter_crds
from support.karpenter_crds import problems, rules_evaluated
from support.karpenter_stacks import KARPENTER_AWS, karpenter_config

CLUSTER = NodeClassInputs("gpu-karpenter", "gpu-karpenter-karpenter-node")
SUBNET = "subnet-0123456789abcdef0"
RESERVATION = "cr-0123456789abcdef0"


@pytest.fixture(autouse=True)
def _crds() -> None:
    karpenter_crds.require_crds()


def pools_of(raw: dict):
    return load_stack(raw).pools


def test_p4d_all_1g_gets_an_overlay_of_56_slices_scoped_to_its_nodepool() -> None:
    p4d, _l40s = pools_of(KARPENTER_AWS)
    overlay = node_overlay(p4d)
    assert overlay is not None
    assert overlay["spec"]["capacity"] == {"nvidia.com/mig-1g.5gb": str(7 * 8)}
    assert {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["p4d-1g"]} in overlay["spec"]["requirements"]
    assert problems(overlay) == []


def test_a_whole_gpu_pool_needs_no_overlay() -> None:
    _p4d, l40s = pools_of(KARPENTER_AWS)
    assert node_overlay(l40s) is None
    assert needs_node_overlay([l40s]) is False and needs_node_overlay(pools_of(KARPENTER_AWS)) is True


@pytest.mark.parametrize(
    ("sharing", "expected"),
    [
        ({"timeSlicing": {"replicas": 4}}, {"nvidia.com/gpu": str(4 * 4)}),
        ({"timeSlicing": {"replicas": 3, "renameByDefault": True}}, {"nvidia.com/gpu.shared": str(3 * 4)}),
    ],
)
def test_a_shared_pool_s_overlay_counts_its_replicas(sharing, expected) -> None:
    (pool,) = pools_of(karpenter_config({"name": "l40s", "size": "g6e.12xlarge", "sharing": sharing}))
    overlay = node_overlay(pool)
    assert overlay is not None and overlay["spec"]["capacity"] == expected
    assert problems(overlay) == []


def test_mig_single_strategy_overlays_the_slices_as_gpus() -> None:
    (pool,) = pools_of(
        karpenter_config({"name": "p4d", "size": "p4d.24xlarge", "mig": {"layout": "all-1g.5gb"}}, migStrategy="single")
    )
    overlay = node_overlay(pool)
    assert overlay is not None and overlay["spec"]["capacity"] == {"nvidia.com/gpu": str(7 * 8)}


def test_an_overlay_saying_zero_is_refused() -> None:
    p4d, _l40s = pools_of(KARPENTER_AWS)
    assert p4d.mig is not None
    # A node model with no GPU cut (the one capacity function then advertises 0 slices), not a real stack's.
    no_gpus = NodeLayout.uniform(0, dict(p4d.mig.node.groups[0].layout or ()))
    empty = dataclasses.replace(p4d, mig=dataclasses.replace(p4d.mig, node=no_gpus))
    with pytest.raises(KarpenterObjectError, match="nvidia.com/mig-1g.5gb 0"):
        node_overlay(empty)


def test_the_nodepool_carries_the_taint_labels_limits_and_gpu_disruption() -> None:
    p4d, _l40s = pools_of(KARPENTER_AWS)
    spec = node_pool(p4d)["spec"]
    template = spec["template"]
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"} in template["spec"]["taints"]
    assert template["metadata"]["labels"]["nvidia.com/mig.config"] == "all-1g.5gb"
    assert spec["limits"] == {"nodes": "2", "nvidia.com/gpu": str(2 * 8)}
    assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty"
    assert spec["disruption"]["budgets"] == [{"nodes": "1"}]
    assert {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p4d.24xlarge"]} in template[
        "spec"
    ]["requirements"]


def test_disruption_settings_reach_the_nodepool() -> None:
    settings = {"expireAfter": "Never", "terminationGracePeriod": "48h", "budget": "10%", "weight": 7}
    (pool,) = pools_of(karpenter_config({"name": "l40s", "size": "g6e.12xlarge", "karpenter": settings}))
    obj = node_pool(pool)
    assert obj["spec"]["template"]["spec"]["expireAfter"] == "Never"
    assert obj["spec"]["template"]["spec"]["terminationGracePeriod"] == "48h"
    assert obj["spec"]["disruption"]["budgets"] == [{"nodes": "10%"}] and obj["spec"]["weight"] == 7
    assert problems(obj) == []


def test_zones_become_a_requirement() -> None:
    (pool,) = pools_of(
        karpenter_config({"name": "l40s", "size": "g6e.12xlarge", "karpenter": {"zones": ["us-east-1a", "us-east-1b"]}})
    )
    obj = node_pool(pool)
    zone = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a", "us-east-1b"]}
    assert zone in obj["spec"]["template"]["spec"]["requirements"]
    assert problems(obj) == []


def test_overlapping_pools_are_weighed_in_stack_order() -> None:
    pools = pools_of(
        karpenter_config(
            {"name": "a", "size": "g6e.12xlarge"},
            {"name": "b", "size": "g6e.12xlarge"},
            {"name": "c", "size": "g5.12xlarge"},
        )
    )
    weights = nodepool_weights(pools)
    assert set(weights) == {"a", "b"} and weights["a"] > weights["b"]


def test_the_node_class_has_the_nvidia_ami_the_role_and_raid0_on_local_nvme() -> None:
    p4d, _l40s = pools_of(KARPENTER_AWS)
    spec = ec2_node_class(p4d, CLUSTER)["spec"]
    assert spec["amiSelectorTerms"] == [{"alias": "al2023@latest"}]
    assert spec["role"] == "gpu-karpenter-karpenter-node"
    assert spec["instanceStorePolicy"] == "RAID0"
    assert spec["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "gpu-karpenter"}}]


def test_efa_and_a_capacity_block_reach_the_node_class() -> None:
    raw = karpenter_config(
        {
            "name": "p4d",
            "size": "p4d.24xlarge",
            "efa": True,
            "subnetIds": [SUBNET],
            "capacityType": "CAPACITY_BLOCK",
            "capacityReservation": RESERVATION,
        }
    )
    raw["gpupools:cluster"].update(subnetIds=[SUBNET], vpcId="vpc-0123456789abcdef0")
    (pool,) = pools_of(raw)
    node_class = ec2_node_class(pool, CLUSTER)
    interfaces = node_class["spec"]["networkInterfaces"]
    assert sum(1 for i in interfaces if i["interfaceType"] == "efa-only") == 4  # p4d: 4 EFA network cards
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [{"id": RESERVATION}]
    assert node_class["spec"]["subnetSelectorTerms"] == [{"id": SUBNET}]
    requirement = node_pool(pool)["spec"]["template"]["spec"]["requirements"][1]
    assert requirement == {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved"]}
    assert problems(node_class) == [] and problems(node_pool(pool)) == []


@pytest.mark.parametrize("capacity_type", ["ON_DEMAND", "SPOT"])
def test_every_object_of_the_stack_passes_the_crds(capacity_type) -> None:
    raw = karpenter_config(
        {"name": "p4d-1g", "size": "p4d.24xlarge", "mig": {"layout": "all-1g.5gb"}, "capacityType": capacity_type},
        {"name": "l40s", "size": "g6e.12xlarge", "sharing": {"timeSlicing": {"replicas": 2}}},
        {"name": "l40s-b", "size": "g6e.12xlarge", "sharing": {"timeSlicing": {"replicas": 2}}},
    )
    cluster = dataclasses.replace(CLUSTER, security_group_ids=("sg-0123456789abcdef0",), tags={"team": "ml"})
    objects = karpenter_objects(pools_of(raw), cluster)
    assert [o["kind"] for o in objects].count("NodeOverlay") == 3
    assert [line for obj in objects for line in problems(obj)] == []
    assert sum(len(rules_evaluated(obj)) for obj in objects) > 20  # the CEL rules really ran


@pytest.mark.parametrize(
    ("kind", "broken", "needle"),
    [
        ("NodePool", lambda o: o["spec"]["template"]["spec"]["requirements"][0].update(values=[]), "values.size()"),
        ("EC2NodeClass", lambda o: o["spec"].update(instanceProfile="p"), "has(self.role)"),
        ("NodeOverlay", lambda o: o["spec"]["capacity"].update(cpu="1"), "'cpu'"),
        ("NodeOverlay", lambda o: o["spec"].update(color="blue"), "Additional properties"),
    ],
)
def test_the_checker_catches_what_the_api_server_refuses(kind, broken, needle) -> None:
    objects = {o["kind"]: o for o in karpenter_objects(pools_of(KARPENTER_AWS)[:1], CLUSTER)}
    obj = objects[kind]
    broken(obj)
    assert any(needle in line for line in problems(obj)), problems(obj)
