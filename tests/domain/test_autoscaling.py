"""Scale from zero: the node-template tags the plan declares, read back the way the cluster autoscaler reads them.

The tags ``gpupools.domain.node_templates`` computes, decoded by the test double in ``support/autoscaler_double.py``
into a template node, and the rules on them; the same tags recorded from the components under the recording mocks
and from the offline plan are checked in ``tests/platform/test_autoscaling_program.py``. Expected figures are
published ones: p4d.24xlarge laid out all-balanced = 16x 1g.5gb, 8x 2g.10gb, 8x 3g.20gb per node (NVIDIA
all-balanced for A100-40GB, 8 GPUs); g5.12xlarge = 4x A10G, time-sliced 4 ways = 16; Standard_ND96asr_v4
with MIG1g = 56 (AKS MIG page).
"""

from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path

import pytest

from support.autoscaler_double import aws_template, azure_template, fits, parse_quantity
from gpupools.domain import node_templates as autoscaling
from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from gpupools.domain.workloads import gpu_toleration, pool_node_selector, slice_workload
from support.autoscaling_stacks import AKS, CLUSTER, EKS, MIG_STATE


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


# --- EKS: the stack's node groups ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def eks_stack():
    return load_stack(EKS)


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


def test_operator_mig_pools_wait_for_the_layout(eks_stack):
    p4d, g5 = eks_stack.pools
    assert pool_node_selector(p4d) == {"gpupools.io/pool": "p4d", MIG_STATE: "success"}
    assert pool_node_selector(g5) == {"gpupools.io/pool": "g5"}
    assert slice_workload(eks_stack, "p4d", "1g.5gb").node_selector[MIG_STATE] == "success"
    assert MIG_STATE not in p4d.labels  # never set at creation: the MIG manager sets it when done


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
