"""Karpenter on EKS under the offline mocks (issue 38): what the program registers and what the SDK serialises for
it. A created cluster gets Karpenter's roles, access entry, Pod Identity, interruption queue, rules and chart, and
per pool an EC2NodeClass, a NodePool and (for the MIG pool) a NodeOverlay; an existing cluster gets only the pools'
objects; the stack says whether Karpenter is there."""

from __future__ import annotations

import copy
import json

import pytest

from support.karpenter_stacks import KARPENTER_AWS
from support.stack_files import plan_config

ROLE = "arn:aws:iam::123456789012:role/platform/shared-karpenter-nodes"


def karpenter_plan(tmp_path, config: dict):
    return plan_config(tmp_path, {"aws:region": "us-east-1", **config}, "karpenter")


@pytest.fixture(scope="module")
def created(tmp_path_factory):
    return karpenter_plan(tmp_path_factory.mktemp("created"), KARPENTER_AWS)


def of_type(plan, type_: str) -> list[dict]:
    return [r for r in plan.resources if r["type"] == type_]


def test_created_cluster_gets_karpenter_and_its_parts(created) -> None:
    types = [r["type"] for r in created.resources]
    assert types.count("gpupools:index:Karpenter") == 1
    assert types.count("aws:cloudwatch/eventRule:EventRule") == 5
    assert types.count("aws:sqs/queue:Queue") == 1
    (entry,) = of_type(created, "aws:eks/accessEntry:AccessEntry")
    assert entry["inputs"]["type"] == "EC2_LINUX"
    (association,) = of_type(created, "aws:eks/podIdentityAssociation:PodIdentityAssociation")
    assert association["inputs"]["serviceAccount"] == "karpenter"
    assert association["inputs"]["namespace"] == "kube-system"
    assert created.outputs["karpenter"] is True
    # Its AWS resources name the cluster by a plain name, so they must wait for it.
    (karpenter,) = of_type(created, "gpupools:index:Karpenter")
    assert any(urn.endswith("eks:index:Cluster::gpu-karpenter-eks") for urn in karpenter["options"]["dependencies"])
    pools = {r["name"]: r for r in of_type(created, "gpupools:index:KarpenterPool")}
    # The pools' objects wait for Karpenter (the SDK lists its children), its chart and CRDs above all.
    assert any(
        urn.endswith("helm.sh/v3:Release::karpenter-release") for urn in pools["p4d-1g"]["options"]["dependencies"]
    )
    assert "aws:eks/nodeGroup:NodeGroup" not in {r["type"] for r in created.resources if "p4d" in r["name"]}


def test_the_chart_is_pinned_and_the_overlay_gate_is_on(created) -> None:
    (release,) = [r for r in of_type(created, "kubernetes:helm.sh/v3:Release") if r["inputs"]["name"] == "karpenter"]
    assert release["inputs"]["version"] == "1.14.1"
    assert release["inputs"]["chart"] == "oci://public.ecr.aws/karpenter/karpenter"
    settings = release["inputs"]["values"]["settings"]
    assert settings["featureGates"] == {"nodeOverlay": True}
    (queue,) = of_type(created, "aws:sqs/queue:Queue")
    assert settings["interruptionQueue"] == queue["inputs"]["name"] == "gpu-karpenter"


def test_each_pool_gets_its_objects(created) -> None:
    pools = of_type(created, "kubernetes:karpenter.sh/v1:NodePool")
    assert sorted(p["inputs"]["metadata"]["name"] for p in pools) == ["l40s", "p4d-1g"]
    (overlay,) = of_type(created, "kubernetes:karpenter.sh/v1alpha1:NodeOverlay")
    assert overlay["inputs"]["spec"]["capacity"] == {"nvidia.com/mig-1g.5gb": str(7 * 8)}
    classes = {
        c["inputs"]["metadata"]["name"]: c for c in of_type(created, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")
    }
    (node_role,) = [r for r in of_type(created, "aws:iam/role:Role") if r["name"].endswith("karpenter-node-role")]
    assert classes["p4d-1g"]["inputs"]["spec"]["role"] == node_role["name"]  # the mocks name a role by its own name


def test_the_controller_policy_is_scoped_to_this_cluster(created) -> None:
    (policy,) = [r for r in of_type(created, "aws:iam/rolePolicy:RolePolicy") if "karpenter" in r["name"]]
    document = json.loads(policy["inputs"]["policy"])
    deletion = next(s for s in document["Statement"] if s["Sid"] == "AllowScopedDeletion")
    assert deletion["Condition"]["StringEquals"] == {"aws:ResourceTag/kubernetes.io/cluster/gpu-karpenter": "owned"}


def test_an_existing_cluster_gets_only_the_pools_objects(tmp_path) -> None:
    config = copy.deepcopy(KARPENTER_AWS)
    config["gpupools:cluster"] = {
        "name": "shared-eks",
        "region": "us-east-1",
        "create": False,
        "nodeRoleArn": ROLE,
        "karpenter": {"present": True},
    }
    plan = karpenter_plan(tmp_path, config)
    types = {r["type"] for r in plan.resources}
    assert "gpupools:index:Karpenter" not in types and "aws:sqs/queue:Queue" not in types
    classes = of_type(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")
    assert {c["inputs"]["spec"]["role"] for c in classes} == {"shared-karpenter-nodes"}
    assert len(of_type(plan, "kubernetes:karpenter.sh/v1:NodePool")) == 2
    assert plan.outputs["karpenter"] is True
