"""The EKS team stack (``examples/existing-eks-team``) planned offline: it reads the platform stack through a
``StackReference`` and adds its MIG node group to that cluster, with the capacity the plan promises (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpupools.testing import RecordingMocks, run_program

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "existing-eks-team"
# What the platform stack (Pulumi.eks.yaml) exports, as a deploy would give it: ids in AWS's formats.
PLATFORM_OUTPUTS = {
    "clusterName": "gpu-eks",
    "subnetIds": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"],
    "vpcId": "vpc-0123456789abcdef0",
    "nodeRoleArn": "arn:aws:iam::123456789012:role/gpu-eks-nodes-role-1a2b3c4",
    "clusterSecurityGroupId": "sg-0123456789abcdef0",
}
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


class PlatformStackMocks(RecordingMocks):
    """Answers the example's StackReference with the platform stack's outputs."""

    def __init__(self, outputs: dict[str, Any]) -> None:
        super().__init__()
        self.outputs = outputs

    def new_resource(self, args) -> tuple[str, dict[str, Any]]:
        if args.typ == "pulumi:pulumi:StackReference":
            return f"{args.name}-id", {"name": args.name, "outputs": self.outputs, "secretOutputNames": []}
        return super().new_resource(args)


def stack_config(**changes: str) -> dict[str, str]:
    settings = yaml.safe_load((EXAMPLE / "Pulumi.team.yaml").read_text(encoding="utf-8"))["config"]
    return {**settings, **{f"gpu-team-eks:{key}": value for key, value in changes.items()}}


def run_example(outputs: dict[str, Any] | None = None, **changes: str):
    mocks = PlatformStackMocks(PLATFORM_OUTPUTS if outputs is None else outputs)
    config = stack_config(**changes)
    return run_program(EXAMPLE, project="gpu-team-eks", stack="team", config=config, mocks=mocks), mocks


def test_the_team_node_group_joins_the_referenced_cluster() -> None:
    run, _ = run_example()
    [group] = [r for r in run.resources if r.type == NODE_GROUP]
    inputs = group.inputs
    # Every link comes from the StackReference, none from local config.
    assert inputs["clusterName"] == PLATFORM_OUTPUTS["clusterName"]
    assert inputs["subnetIds"] == PLATFORM_OUTPUTS["subnetIds"]
    assert inputs["nodeRoleArn"] == PLATFORM_OUTPUTS["nodeRoleArn"]
    assert inputs["instanceTypes"] == ["p4d.24xlarge"]
    assert inputs["labels"]["nvidia.com/mig.config"] == "all-1g.5gb"
    # The cluster is looked up, not created: no cluster, no system node group, no IAM role of its own.
    types = {r.type for r in run.resources}
    assert not types & {"eks:index:Cluster", "eks:index:ManagedNodeGroup", "aws:iam/role:Role"}
    # The platform's GPU Operator serves the new nodes: the team stack installs no chart of its own.
    assert not [r for r in run.resources if r.type.startswith("kubernetes:helm.sh")]
    assert run.outputs["gpuSoftware"]["installer"] == "gpu-operator"


def test_the_exports_give_the_pool_capacity() -> None:
    run, _ = run_example()
    # all-1g.5gb: seven 1g.5gb slices per A100-40GB, eight GPUs per p4d.24xlarge, one node.
    assert run.outputs["slices"] == {"nvidia.com/mig-1g.5gb": 7 * 8}
    # The GPU Operator's MIG manager lays the node out: pods wait until it reports success.
    assert run.outputs["nodeSelector"] == {"gpupools.io/pool": "team-mig", "nvidia.com/mig.config.state": "success"}
    assert run.outputs["nodeGroupName"].startswith("team-mig-")


def test_a_platform_exporting_no_node_role_is_named() -> None:
    outputs = {key: value for key, value in PLATFORM_OUTPUTS.items() if key != "nodeRoleArn"}
    outputs["nodeRoleArn"] = None  # an existing cluster's platform exports none
    with pytest.raises(Exception, match="nodeRoleArn"):
        # require_output: a missing or null output is the platform stack's mistake, said by name.
        run_example(outputs=outputs)


def test_a_placeholder_never_reaches_the_cloud() -> None:
    from gpupools.platform.inputs import DEFERRABLE

    run, mocks = run_example()
    sent = json.dumps([r.inputs for r in run.resources]) + json.dumps([c.args for c in mocks.calls], default=str)
    assert PLATFORM_OUTPUTS["nodeRoleArn"] in sent
    for placeholder in DEFERRABLE.values():
        if isinstance(placeholder, str):
            assert placeholder.format(0) not in sent


def test_a_layout_the_gpu_lacks_is_refused_before_any_resource() -> None:
    from gpupools.component_args import ComponentArgsError

    mocks = PlatformStackMocks(PLATFORM_OUTPUTS)
    with pytest.raises(ComponentArgsError, match=r"gpu_pools\[0\]\.mig\.layout"):
        run_program(
            EXAMPLE, project="gpu-team-eks", stack="team", config=stack_config(migLayout="all-9g.99gb"), mocks=mocks
        )
    assert not [r.type for r in mocks.resources if r.type != "pulumi:pulumi:StackReference"]


def test_requirements_install_the_library_with_the_aws_extra() -> None:
    lines = [line.strip() for line in (EXAMPLE / "requirements.txt").read_text().splitlines()]
    assert any(line.startswith("gpupools[aws] @ git+https://") for line in lines)
    pins = dict(line.split("==") for line in lines if "==" in line and not line.startswith("#"))
    repo_pins = dict(line.split("==") for line in (REPO / "requirements.txt").read_text().splitlines() if "==" in line)
    # The example's SDK pins are the repository's, so the copied folder installs what the tests ran.
    assert {name: pins[name] for name in pins} == {name: repo_pins[name] for name in pins}
