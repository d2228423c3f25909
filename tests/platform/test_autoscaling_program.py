"""Scale from zero, recorded: the node-template tags the components register under the recording mocks
(``EksGpuNodeGroup``'s ``aws:autoscaling/tag:Tag`` children, the AKS agent pool's ``tags``) and those the offline
plan of the real program declares, read back the way the cluster autoscaler reads them (the test double in
``support/autoscaler_double.py``). Expected figures are published ones (``support/autoscaling_stacks.py``).

These run programs under Pulumi's mocks, so they live here and not in ``tests/domain/test_autoscaling.py``.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from support.autoscaler_double import aws_discovered, aws_template, azure_template, fits
from gpupools.domain import node_templates as autoscaling
from gpupools.resolve.stack_loader import load_stack
from gpupools.testing import run_program
from gpupools.domain.workloads import gpu_toleration, pool_node_selector
from support.autoscaling_stacks import (
    CLUSTER,
    TOLERATION,
    MIG_STATE,
    MIG_CONFIG,
    DP_CONFIG,
    EKS,
    EXPECTED_EKS,
    INSTANCE_GPUS,
    NO_WHOLE_GPUS,
    AKS,
)


@pytest.fixture(scope="module")
def eks_stack():
    return load_stack(EKS)


# --- EKS: Auto Scaling group tags recorded from the components -----------------------------------------------------


@pytest.fixture(scope="module")
def eks_run(eks_stack):
    from gpupools.aws import EksCluster, EksGpuNodeGroup

    def program():
        cluster = EksCluster(CLUSTER, {"name": CLUSTER})
        for pool in eks_stack.pools:
            EksGpuNodeGroup(
                pool.name,
                {
                    "cluster": cluster.cluster,
                    "node_group_name": pool.name,
                    "instance_type": pool.size.name,
                    "desired_size": pool.nodes,
                    "min_size": pool.config.autoscaling.min_count,
                    "max_size": pool.config.autoscaling.max_count,
                    "labels": pool.labels,
                    "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints],
                    "autoscaler_tags": autoscaling.eks_autoscaler_tags(eks_stack, pool),
                },
            )

    return run_program(program, project="autoscaling", stack="eks", config={})


def _asg_tags(run) -> dict[str, dict[str, str]]:
    """Per node group component: the tags its aws.autoscaling.Tag children put on the Auto Scaling group."""
    components = {r.urn: r.name for r in run.resources if r.type == "gpupools:index:EksGpuNodeGroup"}
    tags: dict[str, dict[str, str]] = {name: {} for name in components.values()}
    for resource in run.resources:
        if resource.type == "aws:autoscaling/tag:Tag":
            tag = resource.inputs["tag"]
            assert tag["propagateAtLaunch"] is False  # the group only; instances do not need these
            assert resource.inputs["autoscalingGroupName"]  # the group EKS made (unknown in a preview)
            tags[components[resource.parent]][tag["key"]] = tag["value"]
    return tags


def test_every_autoscaled_node_group_is_discovered_by_this_cluster(eks_run):
    tags = _asg_tags(eks_run)
    assert set(tags) == {"p4d", "g5"}
    assert all(aws_discovered(group, CLUSTER) for group in tags.values())
    assert not any(aws_discovered(group, "another-cluster") for group in tags.values())


def test_the_template_advertises_the_published_slices_per_node(eks_run):
    for group, tags in _asg_tags(eks_run).items():
        assert aws_template(tags, instance_gpus=INSTANCE_GPUS[group]).allocatable == {
            name: Decimal(count) for name, count in {**EXPECTED_EKS[group], **NO_WHOLE_GPUS}.items()
        }


def test_the_template_carries_the_mig_layout_the_state_and_the_taint(eks_run):
    node = aws_template(_asg_tags(eks_run)["p4d"], instance_gpus=8)
    assert node.labels[MIG_CONFIG] == "all-balanced" and node.labels[MIG_STATE] == "success"
    assert node.labels["gpupools.io/pool"] == "p4d"
    assert [(t.key, t.value, t.effect) for t in node.taints] == [("nvidia.com/gpu", "present", "NoSchedule")]
    assert aws_template(_asg_tags(eks_run)["g5"], instance_gpus=4).labels[DP_CONFIG] == "g5"


@pytest.mark.parametrize("group", ["p4d", "g5"])
def test_a_pool_pod_fits_its_template_and_others_do_not(eks_run, eks_stack, group):
    pool = next(p for p in eks_stack.pools if p.name == group)
    node = aws_template(_asg_tags(eks_run)[group], instance_gpus=INSTANCE_GPUS[group])
    selector = pool_node_selector(pool)
    one_of_each = {name: 1 for name in EXPECTED_EKS[group]}
    assert fits(node, requests=one_of_each, node_selector=selector, tolerations=[gpu_toleration()])
    assert not fits(node, requests=one_of_each, node_selector=selector, tolerations=[])
    assert not fits(node, requests={"nvidia.com/mig-7g.40gb": 1}, node_selector=selector, tolerations=[TOLERATION])
    full = {name: count + 1 for name, count in EXPECTED_EKS[group].items()}
    assert not fits(node, requests=full, node_selector=selector, tolerations=[TOLERATION])


@pytest.mark.parametrize("group", ["p4d", "g5"])
def test_a_pod_asking_for_whole_gpus_does_not_scale_up_a_pool_that_has_none(eks_run, eks_stack, group):
    """The AWS provider's template starts from the instance type's GPUs; only a 0 tag stops the scale-up."""
    pool = next(p for p in eks_stack.pools if p.name == group)
    node = aws_template(_asg_tags(eks_run)[group], instance_gpus=INSTANCE_GPUS[group])
    assert not fits(node, requests={"nvidia.com/gpu": 1}, node_selector={}, tolerations=[gpu_toleration()])
    assert not fits(
        node, requests={"nvidia.com/gpu": 1}, node_selector=pool_node_selector(pool), tolerations=[gpu_toleration()]
    )


def test_pods_of_one_pool_do_not_scale_the_other(eks_run, eks_stack):
    g5 = aws_template(_asg_tags(eks_run)["g5"], instance_gpus=4)
    p4d_pool = next(p for p in eks_stack.pools if p.name == "p4d")
    assert not fits(g5, requests={}, node_selector=pool_node_selector(p4d_pool), tolerations=[TOLERATION])


def test_asg_tag_resources_are_named_by_key(eks_run):
    names = {r.name for r in eks_run.resources if r.type == "aws:autoscaling/tag:Tag"}
    assert "p4d-asg-node-template/resources/nvidia.com/mig-1g.5gb" in names
    assert "p4d-asg-enabled" in names


# --- AKS: the pool's tags ------------------------------------------------------------------------------------------


def _aks_pool_tags(stack):
    from gpupools.azure import AksGpuPool

    def program():
        for pool in stack.pools:
            AksGpuPool(
                pool.name,
                {
                    "cluster_name": "gpu-dev",
                    "resource_group_name": "gpu-dev-rg",
                    "pool_name": pool.name,
                    "vm_size": pool.size.name,
                    "count": pool.nodes,
                    "gpu_instance_profile": pool.mig.aks_profile,
                    "min_count": pool.config.autoscaling.min_count,
                    "max_count": pool.config.autoscaling.max_count,
                    "node_labels": pool.labels,
                    "node_taints": [str(t) for t in pool.taints],
                    "tags": stack.config.tags,
                    "autoscaler_tags": autoscaling.aks_autoscaler_tags(stack, pool),
                },
            )

    run = run_program(program, project="autoscaling", stack="aks", config={})
    (pool,) = [r for r in run.resources if r.type == "azure-native:containerservice:AgentPool"]
    return pool.inputs


def test_aks_mig_pool_autoscales_from_one_node_with_template_tags():
    stack = load_stack(AKS)
    inputs = _aks_pool_tags(stack)
    assert inputs["enableAutoScaling"] is True and (inputs["minCount"], inputs["maxCount"]) == (1, 4)
    tags = inputs["tags"]
    assert tags["team"] == "ml"  # the stack's tags stay
    node = azure_template(tags, sku_gpus=8)
    assert node.allocatable == {"nvidia.com/gpu": 56}  # the tag overrides the SKU's 8
    assert node.labels["gpupools.io/pool"] == "mig1g"
    pool = stack.pools[0]
    assert fits(node, requests={"nvidia.com/gpu": 1}, node_selector=pool_node_selector(pool), tolerations=[TOLERATION])
    assert not fits(node, requests={"nvidia.com/gpu": 1}, node_selector=pool_node_selector(pool), tolerations=[])


# --- End to end: the tags the offline plan of the real program declares -------------------------------------------


def test_the_offline_plan_declares_the_same_template(tmp_path: Path, eks_stack):
    from gpupools.config.loading import read_stack_file
    from gpupools.plan.offline import plan_stack

    path = tmp_path / "Pulumi.autoscale.yaml"
    path.write_text(yaml.safe_dump({"config": EKS}))
    plan = plan_stack(read_stack_file(path))
    tags = [r for r in plan.resources if r["type"] == "aws:autoscaling/tag:Tag"]
    assert tags, "the program declares no Auto Scaling group tags"
    by_group: dict[str, dict[str, str]] = {}
    for resource in tags:
        by_group.setdefault(resource["parent"], {})[resource["inputs"]["tag"]["key"]] = resource["inputs"]["tag"][
            "value"
        ]
    for group, expected in EXPECTED_EKS.items():
        assert aws_discovered(by_group[group], CLUSTER)
        assert aws_template(by_group[group], instance_gpus=INSTANCE_GPUS[group]).allocatable == {
            name: Decimal(n) for name, n in {**expected, **NO_WHOLE_GPUS}.items()
        }

    # gpupools:cluster.autoscaler.install puts the pinned chart, auto-discovering this cluster, into the same plan.
    (release,) = [
        r
        for r in plan.resources
        if r["type"] == "kubernetes:helm.sh/v3:Release" and r["inputs"]["chart"] == "cluster-autoscaler"
    ]
    assert release["inputs"]["version"] == "9.59.0"
    assert release["inputs"]["values"]["autoDiscovery"]["clusterName"] == CLUSTER


def test_the_offline_plan_tags_the_aks_pool_with_its_template(tmp_path: Path):
    from gpupools.config.loading import read_stack_file
    from gpupools.plan.offline import plan_stack

    path = tmp_path / "Pulumi.aks.yaml"
    path.write_text(yaml.safe_dump({"config": AKS}))
    (pool,) = [
        r for r in plan_stack(read_stack_file(path)).resources if r["type"] == "azure-native:containerservice:AgentPool"
    ]
    tags = pool["inputs"]["tags"]
    assert tags["team"] == "ml"  # the stack's own tags stay
    template = azure_template(tags, sku_gpus=8)
    assert template.allocatable["nvidia.com/gpu"] == Decimal(56)  # 8x A100, 7x 1g.5gb each
