"""The cluster autoscaler on EKS: its IAM role (least privilege, IRSA trust), the component, and the real chart.

Expected names are the chart's and AWS's: chart 9.59.0 ``values.yaml`` (``autoDiscovery.clusterName``,
``awsRegion``, ``rbac.serviceAccount.annotations``, ``extraArgs``) and ``templates/deployment.yaml``
(``--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<name>``,
env ``AWS_REGION``); the cluster-autoscaler AWS README's recommended policy actions; the AWS Auto Scaling
"Tags for security" condition key ``autoscaling:ResourceTag/<key>``; EKS IRSA's
``<issuer>:sub = system:serviceaccount:<namespace>:<name>``.
"""

from __future__ import annotations

import json

import pytest

from gpupools.catalog.chart_refs import CLUSTER_AUTOSCALER
from gpupools.charts.cluster_autoscaler import cluster_autoscaler_values
from gpupools.testing import run_program

from support.helm_render import CHARTS, HelmRenderer, builtin_problems, named, of_kind, renderer  # noqa: F401
from support.resources import one as _one

CLUSTER, REGION, ACCOUNT = "gpu-eks", "us-east-1", "123456789012"
ISSUER = "oidc.eks.us-east-1.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"
OIDC_ARN = f"arn:aws:iam::{ACCOUNT}:oidc-provider/{ISSUER}"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/cluster-autoscaler"
# cluster-autoscaler AWS README, "Recommended" policy (auto-discovery).
README_ACTIONS = {
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations",
    "autoscaling:DescribeScalingActivities",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplateVersions",
    "ec2:GetInstanceTypesFromInstanceRequirements",
    "eks:DescribeNodegroup",
    "autoscaling:SetDesiredCapacity",
    "autoscaling:TerminateInstanceInAutoScalingGroup",
}
SCALING = {"autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"}


def _actions(statement) -> set[str]:
    action = statement["Action"]
    return {action} if isinstance(action, str) else set(action)


# --- IAM -----------------------------------------------------------------------------------------------------------


def test_policy_has_the_readme_actions_and_scales_only_this_clusters_groups():
    from gpupools.aws.cluster_autoscaler_iam import autoscaler_policy

    policy = autoscaler_policy(CLUSTER, REGION, OIDC_ARN)
    assert set().union(*(_actions(s) for s in policy["Statement"])) == README_ACTIONS
    for statement in policy["Statement"]:
        if _actions(statement) & SCALING:
            assert _actions(statement) == SCALING
            assert statement["Condition"] == {
                "StringEquals": {f"autoscaling:ResourceTag/k8s.io/cluster-autoscaler/{CLUSTER}": "owned"}
            }
        if "eks:DescribeNodegroup" in _actions(statement):
            assert statement["Resource"] == f"arn:aws:eks:{REGION}:{ACCOUNT}:nodegroup/{CLUSTER}/*/*"
    assert all(s["Effect"] == "Allow" for s in policy["Statement"])


def test_trust_admits_only_the_autoscaler_service_account():
    from gpupools.aws.cluster_autoscaler_iam import trust_policy

    (statement,) = trust_policy(OIDC_ARN, f"https://{ISSUER}", "kube-system", "cluster-autoscaler")["Statement"]
    assert statement["Principal"] == {"Federated": OIDC_ARN}
    assert statement["Action"] == "sts:AssumeRoleWithWebIdentity"
    assert statement["Condition"]["StringEquals"] == {
        f"{ISSUER}:sub": "system:serviceaccount:kube-system:cluster-autoscaler",
        f"{ISSUER}:aud": "sts.amazonaws.com",
    }


def test_a_non_iam_arn_is_refused():
    from gpupools.aws.cluster_autoscaler_iam import autoscaler_policy

    with pytest.raises(ValueError, match="not an IAM OIDC provider ARN"):
        autoscaler_policy(CLUSTER, REGION, "arn:aws:s3:::bucket")


# --- The component under mocks --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def autoscaler_run():
    from gpupools.kubernetes.cluster_autoscaler import ClusterAutoscaler

    def program():
        ClusterAutoscaler(
            "cluster-autoscaler",
            {
                "cluster_name": CLUSTER,
                "region": REGION,
                "oidc_provider_arn": OIDC_ARN,
                "oidc_provider_url": f"https://{ISSUER}",
                "scale_down_gpu_utilization_threshold": 0.3,
            },
        )

    return run_program(program, project="autoscaling", stack="ca", config={})


def test_the_component_installs_the_pinned_chart_with_irsa(autoscaler_run):
    component = _one(autoscaler_run, "gpupools:index:ClusterAutoscaler")
    release = _one(autoscaler_run, "kubernetes:helm.sh/v3:Release")
    role = _one(autoscaler_run, "aws:iam/role:Role")
    assert release.parent == component.urn and role.parent == component.urn
    inputs = release.inputs
    assert (inputs["chart"], inputs["version"], inputs["repositoryOpts"]["repo"]) == (
        "cluster-autoscaler",
        "9.59.0",
        "https://kubernetes.github.io/autoscaler",
    )
    assert inputs["namespace"] == "kube-system"
    assert not [r for r in autoscaler_run.resources if r.type == "kubernetes:core/v1:Namespace"]  # kube-system exists
    values = inputs["values"]
    assert values["cloudProvider"] == "aws" and values["awsRegion"] == REGION
    assert values["autoDiscovery"] == {"clusterName": CLUSTER}
    # The role's ARN (the mocks name it after the role resource).
    assert values["rbac"]["serviceAccount"]["annotations"]["eks.amazonaws.com/role-arn"].endswith(
        ":role/" + role.name
    )  # arn:aws:iam::ACCOUNT:role/NAME
    assert values["extraArgs"] == {"expander": "least-waste", "scale-down-gpu-utilization-threshold": "0.3"}


def test_the_component_role_trusts_the_release_service_account(autoscaler_run):
    role = _one(autoscaler_run, "aws:iam/role:Role")
    policy = _one(autoscaler_run, "aws:iam/rolePolicy:RolePolicy")
    release = _one(autoscaler_run, "kubernetes:helm.sh/v3:Release")
    account = release.inputs["values"]["rbac"]["serviceAccount"]["name"]
    trust = json.loads(role.inputs["assumeRolePolicy"])
    assert (
        trust["Statement"][0]["Condition"]["StringEquals"][f"{ISSUER}:sub"]
        == f"system:serviceaccount:kube-system:{account}"
    )
    assert set().union(*(_actions(s) for s in json.loads(policy.inputs["policy"])["Statement"])) == README_ACTIONS


def test_bad_component_args_register_nothing():
    from gpupools.component_args import ComponentArgsError
    from gpupools.kubernetes.cluster_autoscaler import ClusterAutoscaler

    def program():
        ClusterAutoscaler(
            "ca",
            {
                "cluster_name": CLUSTER,
                "region": "Europe",
                "oidc_provider_arn": "arn:aws:s3:::b",
                "oidc_provider_url": f"https://{ISSUER}",
                "expander": "priority",
            },
        )

    with pytest.raises(ComponentArgsError) as caught:
        run_program(program, project="autoscaling", stack="bad", config={})
    message = str(caught.value)
    assert "args.region" in message and "args.oidc_provider_arn" in message


# --- The real chart, rendered with these values ---------------------------------------------------------------------

CHART = CHARTS / f"{CLUSTER_AUTOSCALER.name}-{CLUSTER_AUTOSCALER.default_version}"


@pytest.fixture(scope="module")
def rendered(renderer: HelmRenderer):  # noqa: F811 (the session fixture from helm_render)
    if not CHART.is_dir():
        pytest.skip(f"reference chart not found at {CHART}")
    values = cluster_autoscaler_values(
        CLUSTER,
        REGION,
        ROLE_ARN,
        expander="priority",
        priorities={"10": [".*p4d.*"]},
        scale_down_utilization_threshold=0.4,
        scale_down_gpu_utilization_threshold=0.3,
    )
    return renderer.render(CHART, "cluster-autoscaler", "kube-system", values)


def test_rendered_chart_is_valid_kubernetes_1_33(rendered):
    pytest.importorskip("kubernetes_validate")
    assert of_kind(rendered, "Deployment")
    assert builtin_problems(rendered) == []


def test_rendered_deployment_discovers_this_cluster_with_our_flags(rendered):
    (deployment,) = of_kind(rendered, "Deployment")
    spec = deployment["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    args = container.get("command", []) + container.get("args", [])
    assert (
        f"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/{CLUSTER}"
    ) in args
    assert "--cloud-provider=aws" in args
    for flag in (
        "--expander=priority",
        "--scale-down-utilization-threshold=0.4",
        "--scale-down-gpu-utilization-threshold=0.3",
    ):
        assert flag in args
    assert {"name": "AWS_REGION", "value": REGION} in container["env"]
    account = named(rendered, "ServiceAccount", "cluster-autoscaler")
    assert spec["serviceAccountName"] == "cluster-autoscaler"
    assert account["metadata"]["annotations"] == {"eks.amazonaws.com/role-arn": ROLE_ARN}


def test_rendered_priority_expander_configmap(rendered):
    import yaml

    config_map = named(rendered, "ConfigMap", "cluster-autoscaler-priority-expander")
    assert yaml.safe_load(config_map["data"]["priorities"]) == {10: [".*p4d.*"]}
