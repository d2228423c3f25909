"""A Karpenter pool in the plan (issue 38): capacity and cost are ranges from 0 up to its limit, priced per node by
the same price book; the placement check sees the labels Karpenter puts on nodes; the plan warns where Karpenter is
alpha; and a layout change on a NodePool is drift, which Karpenter answers by replacing the nodes create-first
(karpenter docs v1.14 concepts/disruption.md: "Pre-spin any replacement nodes needed [...] and wait for them to
become ready"). Base and head are real offline plans of the same stack before and after."""

from __future__ import annotations

import copy

import pytest

from gpupools.cli.render import markdown_diff
from gpupools.plan.diff import diff_plans
from gpupools.domain.pools import node_labels
from gpupools.resolve.scheduling import matches_affinity
from gpupools.resolve.stack_loader import load_stack
from support.karpenter_stacks import KARPENTER_AWS, karpenter_config
from support.stack_files import plan_config


def _plan(tmp_path, config: dict, name: str):
    return plan_config(tmp_path, {"aws:region": "us-east-1", **config}, name)


def test_capacity_and_cost_are_ranges_up_to_the_limit(tmp_path) -> None:
    plan = _plan(tmp_path, KARPENTER_AWS, "k").to_json()
    capacity = {c["pool"]: c for c in plan["capacity"]}
    p4d = capacity["p4d-1g"]
    assert p4d["nodes"] == 0 and p4d["maxNodes"] == 2
    assert p4d["total"] == {"nvidia.com/mig-1g.5gb": 0}
    assert p4d["totalAtMost"] == {"nvidia.com/mig-1g.5gb": 2 * 7 * 8}
    cost = {c["pool"]: c for c in plan["cost"]["pools"]}["p4d-1g"]
    assert cost["monthly"] == 0
    assert cost["monthlyRange"]["minNodes"] == 0 and cost["monthlyRange"]["maxNodes"] == 2
    assert cost["monthlyRange"]["max"] == cost["nodeHourly"] * 730 * 2  # the price book's rate, per node
    pools = {c["pool"]: c for c in plan["cost"]["pools"]}
    at_most = pools["p4d-1g"]["nodeHourly"] * 730 * 2 + pools["l40s"]["nodeHourly"] * 730 * 4
    assert plan["cost"]["monthly"] == 0 and plan["cost"]["monthlyAtMost"] == pytest.approx(at_most)


def test_the_plan_warns_where_karpenter_is_alpha(tmp_path) -> None:
    warnings = load_stack(KARPENTER_AWS).warnings
    (overlay,) = [w for w in warnings if "NodeOverlay" in w]
    assert "pool p4d-1g" in overlay and "off by default" in overlay and "kubernetes-sigs/karpenter#2533" in overlay
    assert not [w for w in warnings if "pool l40s" in w and "NodeOverlay" in w]
    dra = load_stack(
        karpenter_config({"name": "l40s", "size": "g6e.12xlarge"}, installer="dra-driver", version="0.4.1")
    ).warnings
    assert any("DRA in Karpenter is alpha" in w for w in dra)


def test_the_placement_check_sees_karpenter_s_node_labels() -> None:
    stack = load_stack(KARPENTER_AWS)
    p4d = stack.pools[0]
    labels = node_labels(p4d)
    assert labels["karpenter.sh/nodepool"] == "p4d-1g" and labels["karpenter.sh/capacity-type"] == "on-demand"
    assert labels["node.kubernetes.io/instance-type"] == "p4d.24xlarge"
    assert labels["karpenter.k8s.aws/instance-gpu-count"] == "8" and labels["nvidia.com/mig.config"] == "all-1g.5gb"
    # A daemonset asking for Karpenter's nodes lands there: the check ran with those labels.
    wants_karpenter = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "Exists"}]}]
            }
        }
    }
    assert matches_affinity(wants_karpenter, labels)
    assert stack.placements and all(row.ok for row in stack.placements)


def test_a_layout_change_on_a_nodepool_is_drift_replaced_create_first(tmp_path) -> None:
    head = copy.deepcopy(KARPENTER_AWS)
    head["gpupools:gpuPools"][0]["mig"] = {"layout": "all-balanced"}
    diff = diff_plans(_plan(tmp_path, KARPENTER_AWS, "base").to_json(), _plan(tmp_path, head, "head").to_json())
    pool = next(p for p in diff.pools if p.pool == "p4d-1g")
    assert pool.change == "changed" and pool.replaced_by == () and not pool.outage
    assert pool.effect is not None
    assert "metadata.labels" in pool.effect.what and "drift" in pool.effect.what
    assert "create-first" in pool.effect.what and "at most 1 at a time" in pool.effect.what
    assert next(p for p in diff.pools if p.pool == "l40s").effect is None
    # The pull request comment tells the story under its table.
    (story,) = [line for line in markdown_diff(diff) if line.startswith("- **p4d-1g**")]
    assert "drift, so Karpenter replaces the pool's nodes" in story and "(create-first)" in story


def test_a_limit_change_is_no_drift(tmp_path) -> None:
    head = copy.deepcopy(KARPENTER_AWS)
    head["gpupools:gpuPools"][0]["maxCount"] = 3
    diff = diff_plans(_plan(tmp_path, KARPENTER_AWS, "base").to_json(), _plan(tmp_path, head, "head").to_json())
    pool = next(p for p in diff.pools if p.pool == "p4d-1g")
    assert pool.effect is None and not pool.outage


def test_a_reserved_karpenter_pool_is_priced_as_billed(tmp_path) -> None:
    """An ODCR is billed for what it reserves, used or not: the pool costs its reserved instances at rest."""
    raw = karpenter_config(
        {
            "name": "p4d",
            "size": "p4d.24xlarge",
            "capacityReservation": {"id": "cr-0123456789abcdef0", "instances": 2},
            "subnetIds": ["subnet-0123456789abcdef0"],
        }
    )
    plan = _plan(tmp_path, raw, "reserved").to_json()
    (cost,) = plan["cost"]["pools"]
    assert cost["billedBy"] == "reservation" and cost["nodes"] == 0
    assert cost["monthly"] == pytest.approx(cost["nodeHourly"] * 730 * 2)
    (node_pool,) = [r for r in plan["resources"] if r["type"] == "kubernetes:karpenter.sh/v1:NodePool"]
    requirements = node_pool["inputs"]["spec"]["template"]["spec"]["requirements"]
    assert {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved"]} in requirements
