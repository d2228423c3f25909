"""The EKS platform stack exports what a team stack needs to add its node groups to the shared cluster (issue 28):
``subnetIds``, ``vpcId``, ``nodeRoleArn`` and ``clusterSecurityGroupId``, read from the program's recorded outputs
under the offline mocks. An AKS stack exports none of them (its team stacks use ``resourceGroupName``)."""

from __future__ import annotations

from support.stack_files import plan_repo_stack

TEAM_OUTPUTS = ("subnetIds", "vpcId", "nodeRoleArn", "clusterSecurityGroupId")
ROLE = "aws:iam/role:Role"


def test_created_eks_cluster_exports_the_links_a_team_stack_needs() -> None:
    plan = plan_repo_stack("eks")
    assert set(TEAM_OUTPUTS) <= set(plan.outputs)
    roles = [resource for resource in plan.resources if resource["type"] == ROLE and "nodes" in resource["name"]]
    assert len(roles) == 1
    arn = plan.outputs["nodeRoleArn"]
    # The role the cluster admits, in IAM's ARN shape (global: no region): arn:aws:iam::<account>:role/<name>.
    assert arn == f"arn:aws:iam::123456789012:role/{roles[0]['name']}"
    # pulumi-eks computes the VPC config when the cluster is created: unknown in a preview, but exported.
    assert all(plan.outputs[key] is not None for key in ("subnetIds", "vpcId", "clusterSecurityGroupId"))


def test_aks_stack_exports_none_of_them() -> None:
    plan = plan_repo_stack("dev")
    assert not set(TEAM_OUTPUTS) & set(plan.outputs)
    assert plan.outputs["resourceGroupName"] == "gpu-dev-rg"
