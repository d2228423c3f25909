"""Karpenter's controller policy and interruption queue against the getting-started ``cloudformation.yaml`` of the
v1.14 docs (the reference copy; skipped without it): every statement, by Sid, with the same actions, resources and
conditions once the template's ``${...}`` are filled in for one cluster; the queue's policy and the EventBridge
rules' event patterns likewise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpupools.aws.karpenter_iam import controller_policy, node_policy_arns, pod_identity_trust
from gpupools.aws.node_role import EC2_ASSUME_ROLE
from gpupools.aws.karpenter_queue import INTERRUPTION_EVENTS, event_pattern, queue_policy

CFN = (
    Path(__file__).resolve().parents[2].parent
    / "shared/reference/karpenter/docs/getting-started_getting-started-with-karpenter_cloudformation.yaml"
)
CLUSTER, REGION, PARTITION, ACCOUNT = "gpu-karpenter", "us-east-1", "aws", "123456789012"
NODE_ROLE = f"arn:aws:iam::{ACCOUNT}:role/gpu-karpenter-node"
QUEUE = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{CLUSTER}"
FILLED = {
    "${ClusterName}": CLUSTER,
    "${AWS::Partition}": PARTITION,
    "${AWS::Region}": REGION,
    "${AWS::AccountId}": ACCOUNT,
    "${KarpenterNodeRole.Arn}": NODE_ROLE,
    "${KarpenterInterruptionQueue.Arn}": QUEUE,
}
LEFT_OUT = {"ZonalShiftPolicy"}  # settings.enableZonalShift stays off


class _Loader(yaml.SafeLoader):
    pass


def _tagged(loader: yaml.SafeLoader, _suffix: str, node: yaml.Node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)


_Loader.add_multi_constructor("!", _tagged)


@pytest.fixture(scope="module")
def template() -> dict:
    if not CFN.is_file():
        pytest.skip("../shared/reference/karpenter is absent")
    return yaml.load(CFN.read_text(), Loader=_Loader)


def _fill(text: str) -> str:
    for key, value in FILLED.items():
        text = text.replace(key, value)
    return text


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _normal(statement: dict) -> dict:
    return {
        **statement,
        "Action": sorted(_as_list(statement["Action"])),
        "Resource": sorted(_as_list(statement["Resource"])),
    }


def test_the_controller_policy_is_cloudformation_s_statement_by_statement(template) -> None:
    expected = {}
    for name, resource in template["Resources"].items():
        if resource["Type"] == "AWS::IAM::ManagedPolicy" and name not in LEFT_OUT:
            for statement in json.loads(_fill(resource["Properties"]["PolicyDocument"]))["Statement"]:
                expected[statement["Sid"]] = _normal(statement)
    ours = controller_policy(CLUSTER, REGION, PARTITION, ACCOUNT, NODE_ROLE, QUEUE)["Statement"]
    assert {s["Sid"]: _normal(s) for s in ours} == expected
    actions = {a for s in ours for a in _as_list(s["Action"])}
    assert {"ec2:RunInstances", "ec2:CreateFleet", "ec2:TerminateInstances", "iam:PassRole"} <= actions


def test_the_node_role_is_cloudformation_s(template) -> None:
    role = template["Resources"]["KarpenterNodeRole"]["Properties"]
    assert node_policy_arns(PARTITION) == [_fill(arn) for arn in role["ManagedPolicyArns"]]
    (statement,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert json.loads(EC2_ASSUME_ROLE)["Statement"][0]["Action"] in statement["Action"]
    (ours,) = pod_identity_trust()["Statement"]
    assert ours["Principal"] == {"Service": "pods.eks.amazonaws.com"}


def test_the_queue_and_its_rules_are_cloudformation_s(template) -> None:
    resources = template["Resources"]
    queue = resources["KarpenterInterruptionQueue"]["Properties"]
    assert queue["MessageRetentionPeriod"] == 300 and queue["SqsManagedSseEnabled"] is True
    cfn_policy = resources["KarpenterInterruptionQueuePolicy"]["Properties"]["PolicyDocument"]
    ours = queue_policy(QUEUE)
    assert ours["Id"] == cfn_policy["Id"]
    for mine, theirs in zip(ours["Statement"], cfn_policy["Statement"], strict=True):
        assert mine["Effect"] == theirs["Effect"] and mine["Action"] == theirs["Action"]
        assert mine["Principal"] == theirs["Principal"]
    patterns = [r["Properties"]["EventPattern"] for r in resources.values() if r["Type"] == "AWS::Events::Rule"]
    assert sorted(map(json.dumps, patterns)) == sorted(
        json.dumps(event_pattern(s, d)) for _, s, d in INTERRUPTION_EVENTS
    )
