"""The offline plan shows ARNs and ids in the shapes the clouds give (IAM User Guide, "IAM identifiers": IAM is
global, so its ARNs have no region: ``arn:aws:iam::<12-digit account>:role/<name>``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
# arn:partition:service:region:account-id:resource-type/resource-id (AWS General Reference, "ARN format")
ARN = re.compile(r"arn:aws:(?P<service>[a-z0-9-]+):(?P<region>[a-z0-9-]*):(?P<account>[0-9]{12}|aws):(?P<res>.+)")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def _strings(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def test_the_eks_plans_arns_and_provider_ids_have_real_shapes():
    run = run_cli("plan", "--config", str(REPO / "Pulumi.eks.yaml"), "--json")
    assert run.code == 0, run.err
    document = json.loads(run.out)
    assert document["outputs"]["nodeRoleArn"] == "arn:aws:iam::123456789012:role/gpu-eks-nodes-role"
    arns = [s for s in _strings(document) if s.startswith("arn:")]
    for arn in arns:
        match = ARN.fullmatch(arn)
        assert match, arn
        assert (match["service"] == "iam") == (match["region"] == ""), arn  # IAM is global, the rest regional
        assert "/" in match["res"], arn  # resource-type/resource-id
    providers = [s for s in _strings(document) if "$pulumi:providers:aws::aws::" in s]
    assert providers and all(UUID.fullmatch(p.rpartition("::")[2]) for p in providers)
