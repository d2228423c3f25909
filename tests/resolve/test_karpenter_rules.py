"""Karpenter pools (issue 38): what ``check`` refuses. A Karpenter pool has a limit (``maxCount``), never a count
or cluster-autoscaler bounds; it needs Karpenter in its cluster (installed here, or said to be there on an existing
cluster with the node role it admits); AKS offers no Karpenter."""

from __future__ import annotations

import copy

import pytest

from gpupools.config import ConfigError
from gpupools.catalog.provisioners import PROVISIONERS, UnsupportedByProvisioner, provisioner_named
from gpupools.catalog.installers import Capability
from gpupools.resolve.stack_loader import load_stack

from support.base_configs import AWS, AZURE, messages_at

ROLE = "arn:aws:iam::123456789012:role/shared-eks-nodes"
POOL = "gpupools:gpuPools[0]"


def karpenter(pool: dict | None = None, **cluster) -> dict:
    raw = copy.deepcopy(AWS)
    raw["gpupools:cluster"] = {**raw["gpupools:cluster"], "karpenter": {"install": True}, **cluster}
    raw["gpupools:gpuPools"][0] = {
        "name": "p4d",
        "size": "p4d.24xlarge",
        "provisioner": "karpenter",
        "maxCount": 2,
        "mig": {"layout": "all-1g.5gb"},
        **(pool or {}),
    }
    return raw


def existing(pool: dict | None = None, **karpenter_settings) -> dict:
    raw = karpenter(pool)
    raw["gpupools:cluster"] = {
        "name": "shared-eks",
        "region": "us-east-1",
        "create": False,
        "nodeRoleArn": ROLE,
        "karpenter": karpenter_settings,
    }
    return raw


def test_a_karpenter_pool_resolves_with_its_limit() -> None:
    stack = load_stack(karpenter())
    (pool,) = stack.pools
    assert pool.config.provisioner == "karpenter" and pool.config.max_count == 2


def test_a_node_group_pool_stays_the_default() -> None:
    (pool,) = load_stack(copy.deepcopy(AWS)).pools
    assert pool.config.provisioner == "nodeGroup" and pool.config.max_count is None


@pytest.mark.parametrize(
    ("key", "value"),
    [("count", 1), ("autoscaling", {"minCount": 0, "maxCount": 2}), ("rotation", "surge")],
)
def test_count_autoscaling_and_rotation_are_refused_on_a_karpenter_pool(key, value) -> None:
    (message,) = messages_at(karpenter({key: value}), f"{POOL}.{key}")
    assert "refused with provisioner karpenter" in message and "maxCount" in message


def test_a_karpenter_pool_needs_max_count() -> None:
    raw = karpenter()
    del raw["gpupools:gpuPools"][0]["maxCount"]
    (message,) = messages_at(raw, f"{POOL}.maxCount")
    assert "is required with provisioner karpenter" in message


@pytest.mark.parametrize(("key", "value"), [("maxCount", 3), ("karpenter", {"consolidateAfter": "1h"})])
def test_karpenter_keys_are_refused_on_a_node_group(key, value) -> None:
    raw = copy.deepcopy(AWS)
    raw["gpupools:gpuPools"][0][key] = value
    (message,) = messages_at(raw, f"{POOL}.{key}")
    assert "set provisioner: karpenter" in message


def test_a_karpenter_pool_on_aks_is_refused() -> None:
    raw = copy.deepcopy(AZURE)
    raw["gpupools:gpuPools"][0].update(provisioner="karpenter", maxCount=2)
    (message,) = messages_at(raw, f"{POOL}.provisioner")
    assert message == "'karpenter' is not offered on azure; allowed: nodeGroup"


def test_karpenter_settings_on_aks_are_refused() -> None:
    raw = copy.deepcopy(AZURE)
    raw["gpupools:cluster"]["karpenter"] = {"install": True}
    (message,) = messages_at(raw, "gpupools:cluster.karpenter")
    assert "Karpenter is not offered there; allowed on aws" in message


def test_a_created_cluster_must_install_karpenter() -> None:
    raw = karpenter()
    del raw["gpupools:cluster"]["karpenter"]
    (message,) = messages_at(raw, f"{POOL}.provisioner")
    assert "cluster.karpenter.install: true" in message


def test_an_existing_cluster_must_say_karpenter_is_there() -> None:
    (message,) = messages_at(existing(), f"{POOL}.provisioner")
    assert "present: true" in message


def test_an_existing_cluster_that_says_so_takes_karpenter_pools() -> None:
    (pool,) = load_stack(existing(present=True)).pools
    assert pool.config.provisioner == "karpenter"


def test_an_existing_cluster_needs_the_node_role() -> None:
    raw = existing(present=True)
    del raw["gpupools:cluster"]["nodeRoleArn"]
    (message,) = messages_at(raw, f"{POOL}.provisioner")
    assert "nodeRoleArn" in message


def test_installing_karpenter_is_the_owning_stack_s() -> None:
    (message,) = messages_at(existing(install=True, present=True), "gpupools:cluster.karpenter.install")
    assert "one Karpenter serves a whole cluster" in message


def test_present_is_for_an_existing_cluster() -> None:
    raw = karpenter()
    raw["gpupools:cluster"]["karpenter"]["present"] = True
    (message,) = messages_at(raw, "gpupools:cluster.karpenter.present")
    assert "existing cluster" in message


def test_a_reservation_group_is_refused_on_a_karpenter_pool() -> None:
    group = "arn:aws:resource-groups:us-east-1:123456789012:group/gpu-odcrs"
    raw = karpenter({"capacityReservation": group, "subnetIds": ["subnet-0123456789abcdef0"]})
    (message,) = messages_at(raw, f"{POOL}.capacityReservation")
    assert "by id (cr-...) or tags only" in message


def test_a_limit_above_the_reserved_instances_is_refused() -> None:
    reservation = {"id": "cr-0123456789abcdef0", "instances": 1}
    raw = karpenter({"capacityReservation": reservation, "subnetIds": ["subnet-0123456789abcdef0"]})
    (message,) = messages_at(raw, f"{POOL}.maxCount")
    assert message.startswith("maxCount 2 is above the 1 instances the reservation holds")
    (pool,) = load_stack(
        karpenter({"capacityReservation": {**reservation, "instances": 2}, "subnetIds": [SUBNET]})
    ).pools
    assert pool.config.reserved_instances == 2


SUBNET = "subnet-0123456789abcdef0"


@pytest.mark.parametrize(
    ("zones", "index", "needle"),
    [
        (["us-east-1"], 0, "is not an availability zone name"),
        (["us-west-2a"], 0, "is not in the cluster's region us-east-1"),
        (["us-east-1a", "us-east-1a"], 1, "listed more than once"),
    ],
)
def test_zones_are_named_once_in_the_cluster_s_region(zones, index, needle) -> None:
    (message,) = messages_at(karpenter({"karpenter": {"zones": zones}}), f"{POOL}.karpenter.zones[{index}]")
    assert needle in message


def test_zones_in_the_region_are_taken() -> None:
    (pool,) = load_stack(karpenter({"karpenter": {"zones": ["us-east-1a", "us-east-1f"]}})).pools
    assert pool.config.karpenter is not None and pool.config.karpenter.zones == ["us-east-1a", "us-east-1f"]


@pytest.mark.parametrize(("key", "value"), [("consolidateAfter", "15 minutes"), ("budget", "101%"), ("weight", 0)])
def test_disruption_settings_are_shaped_as_karpenter_spells_them(key, value) -> None:
    with pytest.raises(ConfigError) as caught:
        load_stack(karpenter({"karpenter": {key: value}}))
    assert any(p.field == f"{POOL}.karpenter.{key}" for p in caught.value.problems), caught.value


def test_a_provisioner_without_a_facet_is_refused_by_name() -> None:
    """The registry refuses a capability a provisioner was never given, naming both."""
    with pytest.raises(UnsupportedByProvisioner, match="cloud objects is not supported by node provisioner nodeGroup"):
        provisioner_named("nodeGroup").facet(Capability("cloud objects"))
    assert set(PROVISIONERS) == {"nodeGroup", "karpenter"}
