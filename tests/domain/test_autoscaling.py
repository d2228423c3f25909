"""Scale from zero: the node-template tags the plan declares, read back the way the cluster autoscaler reads them.

The components run under the recording mocks with the tags ``gpupools.domain.node_templates`` computes; the test
double in ``support/autoscaler_double.py`` decodes the recorded ``aws:autoscaling/tag:Tag`` inputs (EKS) and the AKS
agent pool's ``tags`` (Azure) into a template node and checks which pods fit it. Expected figures are
published ones: p4d.24xlarge laid out all-balanced = 16x 1g.5gb, 8x 2g.10gb, 8x 3g.20gb per node (NVIDIA
all-balanced for A100-40GB, 8 GPUs); g5.12xlarge = 4x A10G, time-sliced 4 ways = 16; Standard_ND96asr_v4
with MIG1g = 56 (AKS MIG page).
"""

from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from support.autoscaler_double import aws_discovered, aws_template, azure_template, fits, parse_quantity
from gpupools.domain import node_templates as autoscaling
from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from gpupools.testing import run_program
from gpupools.domain.workloads import gpu_toleration, pool_node_selector, slice_workload

CLUSTER = "gpu-eks"
TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}  # README gpuToleration
MIG_STATE = "nvidia.com/mig.config.state"  # NVIDIA gpu-operator-mig docs
MIG_CONFIG = "nvidia.com/mig.config"
DP_CONFIG = "nvidia.com/device-plugin.config"  # device plugin README v0.20.0

EKS = {
    "gpupools:cloud": "aws",
    "gpupools:cluster": {
        "name": CLUSTER,
        "region": "us-east-1",
        "systemPool": {"size": "m6i.large"},
        "autoscaler": {"install": True},
    },
    "gpupools:gpuPools": [
        {
            "name": "p4d",
            "size": "p4d.24xlarge",
            "count": 0,
            "autoscaling": {"minCount": 0, "maxCount": 4},
            "mig": {"layout": "all-balanced"},
        },
        {
            "name": "g5",
            "size": "g5.12xlarge",
            "count": 0,
            "autoscaling": {"minCount": 0, "maxCount": 3},
            "sharing": {"timeSlicing": {"replicas": 4, "renameByDefault": True}},
        },
    ],
    "gpupools:gpuSoftware": {"installer": "gpu-operator", "migStrategy": "mixed"},
}
EXPECTED_EKS = {
    "p4d": {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8},
    "g5": {"nvidia.com/gpu.shared": 16},
}
# GPUs per instance (EC2 accelerated computing instance types: p4d.24xlarge 8x A100, g5.12xlarge 4x A10G): the
# autoscaler's AWS provider starts each template node with this many nvidia.com/gpu.
INSTANCE_GPUS = {"p4d": 8, "g5": 4}
# Neither pool advertises whole GPUs (MIG mixed, renamed time-slicing), so its template must say 0.
NO_WHOLE_GPUS = {"nvidia.com/gpu": 0}
AKS = {
    "gpupools:cloud": "azure",
    "gpupools:cluster": {
        "name": "gpu-dev",
        "resourceGroup": "gpu-dev-rg",
        "location": "southcentralus",
        "systemPool": {"size": "Standard_D4s_v5"},
    },
    "gpupools:gpuPools": [
        {
            "name": "mig1g",
            "size": "Standard_ND96asr_v4",
            "count": 1,
            "autoscaling": {"minCount": 1, "maxCount": 4},
            "mig": {"profile": "MIG1g"},
        }
    ],
    "gpupools:gpuSoftware": {"installer": "device-plugin", "migStrategy": "single"},
    "gpupools:tags": {"team": "ml"},
}


def _config(base, **pool_changes):
    config = copy.deepcopy(base)
    config["gpupools:gpuPools"][0].update(pool_changes)
    return config


def _problems(config) -> str:
    with pytest.raises(ConfigError) as caught:
        load_stack(config)
    return str(caught.value)


# --- The autoscaler double itself --------------------------------------------------------------------------------


def test_quantities_parse_like_kubernetes_and_bad_ones_are_skipped():
    assert parse_quantity("16") == 16 and parse_quantity("1k") == 1000 and parse_quantity("1Ki") == 1024
    assert parse_quantity("500m") == Decimal("0.5")
    assert parse_quantity("sixteen") is None and parse_quantity("16 ") is None
    assert aws_template({autoscaling.AWS_PREFIX + "resources/nvidia.com/gpu": "x"}, instance_gpus=8).allocatable == {
        "nvidia.com/gpu": 8
    }  # an unparsable tag leaves the instance type's count


# --- EKS: Auto Scaling group tags recorded from the components -----------------------------------------------------


@pytest.fixture(scope="module")
def eks_stack():
    return load_stack(EKS)


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


def test_a_pool_of_whole_gpus_keeps_the_instance_types_count(tmp_path: Path):
    raw = copy.deepcopy(EKS)
    raw["gpupools:gpuSoftware"]["migStrategy"] = "none"
    raw["gpupools:gpuPools"] = raw["gpupools:gpuPools"][:1]
    del raw["gpupools:gpuPools"][0]["mig"]
    stack = load_stack(raw)
    tags = autoscaling.eks_autoscaler_tags(stack, stack.pools[0])
    assert tags[autoscaling.AWS_PREFIX + "resources/nvidia.com/gpu"] == "8"
    node = aws_template(tags, instance_gpus=8)
    assert fits(
        node,
        requests={"nvidia.com/gpu": 8},
        node_selector=pool_node_selector(stack.pools[0]),
        tolerations=[gpu_toleration()],
    )


def test_pods_of_one_pool_do_not_scale_the_other(eks_run, eks_stack):
    g5 = aws_template(_asg_tags(eks_run)["g5"], instance_gpus=4)
    p4d_pool = next(p for p in eks_stack.pools if p.name == "p4d")
    assert not fits(g5, requests={}, node_selector=pool_node_selector(p4d_pool), tolerations=[TOLERATION])


def test_operator_mig_pools_wait_for_the_layout(eks_stack):
    p4d, g5 = eks_stack.pools
    assert pool_node_selector(p4d) == {"gpupools.io/pool": "p4d", MIG_STATE: "success"}
    assert pool_node_selector(g5) == {"gpupools.io/pool": "g5"}
    assert slice_workload(eks_stack, "p4d", "1g.5gb").node_selector[MIG_STATE] == "success"
    assert MIG_STATE not in p4d.labels  # never set at creation: the MIG manager sets it when done


def test_asg_tag_resources_are_named_by_key(eks_run):
    names = {r.name for r in eks_run.resources if r.type == "aws:autoscaling/tag:Tag"}
    assert "p4d-asg-node-template/resources/nvidia.com/mig-1g.5gb" in names
    assert "p4d-asg-enabled" in names


# --- EKS rules -----------------------------------------------------------------------------------------------------


def test_eks_mixed_mig_autoscaling_warns_about_gpu_accounting(eks_stack):
    mixed = [w for w in eks_stack.warnings if "kubernetes/autoscaler#8095" in w]
    assert len(mixed) == 1 and mixed[0].startswith("pool p4d:")  # g5 advertises nvidia.com/gpu.shared, no MIG


def test_eks_autoscaling_without_an_autoscaler_warns():
    config = copy.deepcopy(EKS)
    config["gpupools:cluster"].pop("autoscaler")
    assert any("none is installed" in w for w in load_stack(config).warnings)


def test_eks_asg_tag_budget_is_refused_at_config_time():
    labels = {f"example.com/l{i}": "x" for i in range(40)}
    message = _problems(_config(EKS, labels=labels))
    assert "gpupools:gpuPools[0].autoscaling" in message and "AWS allows 50" in message


def test_the_zero_gpu_tag_counts_towards_the_budget():
    """p4d all-balanced: 2 discovery + 3 MIG resources + nvidia.com/gpu 0 + 5 labels (pool, GPU present, MIG config,
    MIG manager, MIG state) + 1 taint = 12 tags; 35 more labels reach AWS's 50 less EKS's 3, one more is refused."""
    base = len(autoscaling.eks_autoscaler_tags(load_stack(EKS), load_stack(EKS).pools[0]))
    assert base == 12
    fits_budget = _config(EKS, labels={f"example.com/l{i}": "x" for i in range(47 - base)})
    assert len(autoscaling.eks_autoscaler_tags(load_stack(fits_budget), load_stack(fits_budget).pools[0])) == 47
    assert "AWS allows 50" in _problems(_config(EKS, labels={f"example.com/l{i}": "x" for i in range(48 - base)}))


def test_autoscaler_keys_without_install_are_refused():
    config = copy.deepcopy(EKS)
    config["gpupools:cluster"]["autoscaler"] = {"expander": "most-pods"}
    assert "gpupools:cluster.autoscaler" in _problems(config)


def test_priority_expander_needs_priorities():
    config = copy.deepcopy(EKS)
    config["gpupools:cluster"]["autoscaler"] = {"install": True, "expander": "priority"}
    assert "priorities" in _problems(config)


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


def test_azure_names_with_underscores_round_trip():
    config = _config(AKS, labels={"example.com/cpu_arch": "x86"})
    tags = autoscaling.aks_autoscaler_tags(load_stack(config), load_stack(config).pools[0])
    assert "k8s.io_cluster-autoscaler_node-template_label_example.com_cpu~2arch" in tags
    assert azure_template(tags, sku_gpus=8).labels["example.com/cpu_arch"] == "x86"
    assert not any(c in key for key in tags for c in "<>%&\\?/")  # Azure tag name rules


def test_aks_mig_resources_cannot_start_from_zero():
    config = _config(AKS, autoscaling={"minCount": 0, "maxCount": 4})
    config["gpupools:gpuSoftware"]["migStrategy"] = "mixed"
    message = _problems(config)
    assert "gpupools:gpuPools[0].autoscaling.minCount" in message
    assert "Azure/AKS#5161" in message and "nvidia.com/mig-1g.5gb" in message


def test_aks_shared_resources_cannot_start_from_zero():
    config = _config(
        AKS,
        name="tfour",
        size="Standard_NC64as_T4_v3",
        autoscaling={"minCount": 0, "maxCount": 2},
        sharing={"timeSlicing": {"replicas": 4, "renameByDefault": True}},
    )
    config["gpupools:gpuPools"][0].pop("mig")
    assert "nvidia.com/gpu.shared" in _problems(config)


def test_aks_whole_gpus_from_zero_are_allowed_with_a_warning():
    config = _config(AKS, autoscaling={"minCount": 0, "maxCount": 4})
    stack = load_stack(config)
    assert any("minCount 0 on AKS" in w and "8x nvidia.com/gpu" in w for w in stack.warnings)
    (row,) = autoscaling.autoscaling_summary(stack)
    assert row["scaleFromZero"] is True and row["templateResources"] == {"nvidia.com/gpu": 56}


def test_aks_tag_limit_counts_the_stack_tags():
    config = _config(AKS)
    config["gpupools:tags"] = {f"t{i}": "x" for i in range(47)}
    assert "Azure allows 50" in _problems(config)


def test_cluster_autoscaler_install_is_refused_on_azure():
    config = copy.deepcopy(AKS)
    config["gpupools:cluster"]["autoscaler"] = {"install": True}
    assert "gpupools:cluster.autoscaler" in _problems(config) and "managed" in _problems(config)


# --- Component args ------------------------------------------------------------------------------------------------


def test_too_many_asg_tags_are_refused_before_registering():
    from gpupools.component_args import ComponentArgsError, EksGpuNodeGroupArgsModel, check_args

    class Cluster:  # stands in for a pulumi_eks Cluster (a deferred value)
        __module__ = "pulumi_eks"

    args = {
        "cluster": Cluster(),
        "node_group_name": "p4d",
        "instance_type": "p4d.24xlarge",
        "desired_size": 0,
        "autoscaler_tags": {f"k{i}": "v" for i in range(48)},
    }
    with pytest.raises(ComponentArgsError, match="autoscaler_tags: 48 tags; at most 47"):
        check_args(EksGpuNodeGroupArgsModel, "EksGpuNodeGroup", "p4d", args)


def test_aks_pool_tags_together_over_50_are_refused():
    from gpupools.component_args import AksGpuPoolArgsModel, ComponentArgsError, check_args

    args = {
        "cluster_name": "c",
        "resource_group_name": "rg",
        "pool_name": "p",
        "vm_size": "Standard_ND96asr_v4",
        "count": 1,
        "tags": {f"t{i}": "x" for i in range(30)},
        "autoscaler_tags": {f"a{i}": "x" for i in range(21)},
    }
    with pytest.raises(ComponentArgsError, match="51 tags"):
        check_args(AksGpuPoolArgsModel, "AksGpuPool", "p", args)


# --- The plan shows it ---------------------------------------------------------------------------------------------


def test_plan_lines_name_bounds_template_and_scale_from_zero(eks_stack):
    lines = autoscaling.plan_lines(eks_stack)
    assert lines[0].startswith(
        "p4d: 0..4 nodes, template 16x nvidia.com/mig-1g.5gb, 8x nvidia.com/mig-2g.10gb, "
        "8x nvidia.com/mig-3g.20gb; scales from zero"
    )
    assert lines[1].startswith("g5: 0..3 nodes, template 16x nvidia.com/gpu.shared; scales from zero")


def test_summary_is_json_ready(eks_stack):
    import json

    rows = json.loads(json.dumps(autoscaling.autoscaling_summary(eks_stack)))
    assert rows[0]["templateTaints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert rows[0]["templateLabels"][MIG_STATE] == "success"


def test_cluster_autoscaler_args_for_the_wiring(eks_stack):
    assert autoscaling.cluster_autoscaler_args(eks_stack) == {
        "cluster_name": CLUSTER,
        "region": "us-east-1",
        "version": "9.59.0",
        "namespace": "kube-system",
        "expander": "least-waste",
    }
    assert autoscaling.cluster_autoscaler_args(load_stack(AKS)) is None


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
