"""``GpuPlatform`` on its own: the same stack as the program from hand-written args, outputs for names/ids/counts,
bad args refused before anything registers, and the cloud extras' missing-SDK message.

Expected capacities are published figures: Standard_ND96asr_v4 and p4d.24xlarge each carry 8x A100 40GB; an
A100 40GB holds 7x 1g.5gb, and NVIDIA's ``all-balanced`` layout is 2x 1g.5gb + 1x 2g.10gb + 1x 3g.20gb per GPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pulumi
import pytest

from gpupools.component_args import ComponentArgsError
from gpupools.config import read_stack_file
from gpupools.plan.offline import plan_stack
from gpupools.platform import GpuPlatform
from gpupools.platform import args as platform_args
from gpupools.platform.inputs import config_models
from gpupools.testing import RecordingMocks, dump_resources, run_program

ROOT = Path(__file__).resolve().parents[2]
AGENT_POOL = "azure-native:containerservice:AgentPool"
NODE_GROUP = "eks:index:ManagedNodeGroup"
MIG_1G_PER_ND96 = {"nvidia.com/gpu": 8 * 7}
P4D_BALANCED = {"nvidia.com/mig-1g.5gb": 8 * 2, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8}

# Pulumi.dev.yaml and Pulumi.eks.yaml, written as GpuPlatform args by hand.
DEV = {
    "cloud": "azure",
    "cluster": {
        "name": "gpu-dev",
        "create": True,
        "resource_group": "gpu-dev-rg",
        "location": "southcentralus",
        "kubernetes_version": "1.35",
        "system_pool": {"size": "Standard_D4s_v5", "count": 2},
    },
    "gpu_pools": [{"name": "mig1g", "size": "Standard_ND96asr_v4", "count": 1, "mig": {"profile": "MIG1g"}}],
    "gpu_software": {"installer": "device-plugin", "version": "0.20.0", "mig_strategy": "single", "gfd": True},
}
EKS = {
    "cloud": "aws",
    "cluster": {
        "name": "gpu-eks",
        "create": True,
        "region": "us-east-1",
        "kubernetes_version": "1.35",
        "system_pool": {"size": "m6i.large", "count": 2},
    },
    "gpu_pools": [{"name": "p4d-balanced", "size": "p4d.24xlarge", "count": 1, "mig": {"layout": "all-balanced"}}],
    "gpu_software": {"installer": "gpu-operator", "version": "v26.7.0", "mig_strategy": "mixed", "gfd": True},
}


def run_platform(args: Any, mocks: RecordingMocks | None = None, stack: str = "test", **options: Any):
    """Runs one platform; ``args`` may be a function making them, so outputs are made inside the program's loop."""

    def program() -> None:
        platform = GpuPlatform("gpupools", args() if callable(args) else args, **options)
        pulumi.export("perNode", platform.resources_per_node)
        pulumi.export("total", platform.resources_total)
        pulumi.export("selectors", platform.node_selectors)
        pulumi.export("kubeconfig", platform.kubeconfig)
        pulumi.export("clusterName", platform.cluster_name)
        pulumi.export("toleration", platform.gpu_toleration)

    return run_program(program, project="gpupools", stack=stack, config={}, mocks=mocks)


@pytest.fixture(scope="module")
def stack_plans():
    return {name: plan_stack(read_stack_file(ROOT / f"Pulumi.{name}.yaml")) for name in ("dev", "eks")}


@pytest.mark.parametrize(
    "name, args, per_node", [("dev", DEV, {"mig1g": MIG_1G_PER_ND96}), ("eks", EKS, {"p4d-balanced": P4D_BALANCED})]
)
def test_platform_alone_builds_what_the_stack_program_builds(stack_plans, name, args, per_node) -> None:
    # The stack program's platform keeps gpupools 0.1's names; the same stack name makes the URNs match too.
    run = run_platform(args, stack=name, adopt_stack_resources=True)
    assert dump_resources(run) == stack_plans[name].resources
    assert run.outputs["perNode"] == per_node and run.outputs["total"] == per_node  # one node each
    assert {pool: plan["resourcesPerNode"] for pool, plan in stack_plans[name].outputs["gpuPools"].items()} == per_node
    assert run.outputs["kubeconfig"] == "[secret]"
    assert run.outputs["clusterName"] == args["cluster"]["name"]
    assert run.outputs["toleration"] == {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    assert all(selector["gpupools.io/pool"] == pool for pool, selector in run.outputs["selectors"].items())


def test_stack_program_adopts_resources_it_registered_at_the_stack_root() -> None:
    """Stacks deployed before GpuPlatform have the cluster and pools at the root: aliases keep them, not replace
    them."""
    seen: dict[str, Any] = {}

    def record(args: pulumi.ResourceTransformationArgs) -> None:
        seen[args.name] = (args.opts.parent, list(args.opts.aliases or []))

    def program() -> None:
        pulumi.runtime.register_stack_transformation(record)
        GpuPlatform("gpupools", DEV, adopt_stack_resources=True)
        GpuPlatform("other", {**DEV, "cluster": {**DEV["cluster"], "name": "gpu-two", "resource_group": "two-rg"}})

    run_program(program, project="gpupools", stack="test", config={})
    for name in ("gpu-dev", "mig1g", "device-plugin"):  # cluster, pool and chart of the adopting platform
        parent, aliases = seen[name]
        assert isinstance(parent, GpuPlatform)
        assert [alias.parent for alias in aliases] == [pulumi.ROOT_STACK_RESOURCE], name
    # A second platform in the same stack: its children carry its name, and it has no history to adopt.
    for name in ("other-gpu-two", "other-mig1g", "other-device-plugin"):
        assert seen[name][1] == [], name


def test_infra_program_is_the_packaged_program() -> None:
    text = (ROOT / "infra" / "__main__.py").read_text()
    assert "from gpupools.platform.program import main" in text and len(text.splitlines()) < 12
    assert sorted(path.name for path in (ROOT / "infra").glob("*.py")) == ["__main__.py"]


# --- outputs for names, ids and counts ---------------------------------------------------------------------


def test_names_and_counts_may_be_outputs_of_other_resources() -> None:
    def args():
        return {
            **DEV,
            "cluster": {
                "name": pulumi.Output.from_input("shared-aks"),
                "create": False,
                "resource_group": pulumi.Output.secret("platform-rg"),
            },
            "gpu_pools": [{**DEV["gpu_pools"][0], "count": pulumi.Output.from_input(3)}],
        }

    run = run_platform(args)
    (pool,) = [r for r in run.resources if r.type == AGENT_POOL]
    assert pool.inputs["resourceName"] == "shared-aks" and pool.inputs["count"] == 3
    assert run.outputs["perNode"] == {"mig1g": MIG_1G_PER_ND96}
    assert run.outputs["total"] == {"mig1g": {"nvidia.com/gpu": 3 * 56}}  # from the output count
    # The cluster component is named after the platform when the cluster's name is not known yet.
    assert [r.name for r in run.resources if r.type == "gpupools:index:AksCluster"] == ["gpupools-cluster"]


def test_eks_takes_subnets_and_vpc_as_outputs() -> None:
    def args():
        subnets = [pulumi.Output.from_input("subnet-0123456789abcdef0"), "subnet-0fedcba9876543210"]
        return {
            **EKS,
            "cluster": {**EKS["cluster"], "subnet_ids": subnets, "vpc_id": pulumi.Output.from_input("vpc-0abc1234")},
            "gpu_pools": [{**EKS["gpu_pools"][0], "count": 2}],
        }

    run = run_platform(args)
    (group,) = [r for r in run.resources if r.type == NODE_GROUP and r.name.startswith("gpupools-p4d-balanced-")]
    assert group.inputs["subnetIds"] == ["subnet-0123456789abcdef0", "subnet-0fedcba9876543210"]
    assert group.inputs["scalingConfig"] == {"desiredSize": 2, "minSize": 2, "maxSize": 2}
    (cluster,) = [r for r in run.resources if r.type == "eks:index:Cluster"]
    assert cluster.inputs["vpcId"] == "vpc-0abc1234"
    assert run.outputs["total"] == {"p4d-balanced": {name: 2 * count for name, count in P4D_BALANCED.items()}}


def _refused(args: Any, name: str = "gpupools") -> list[str]:
    mocks = RecordingMocks()

    def program() -> None:
        GpuPlatform(name, args() if callable(args) else args)

    with pytest.raises(ComponentArgsError) as error:
        run_program(program, project="gpupools", stack="test", config={}, mocks=mocks)
    assert mocks.resources == [] and mocks.calls == []  # not even the component itself
    return str(error.value).splitlines()


def test_bad_args_name_every_problem_and_register_nothing() -> None:
    args = {
        **DEV,
        "gpu_pools": [
            {"name": "p4d", "size": "p4d.24xlarge"},
            {"name": "MIG_Pool", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG5g"}, "os_skuu": "Ubuntu"},
        ],
    }
    lines = _refused(args)
    assert all(line.startswith("GpuPlatform('gpupools') args.") for line in lines)
    fields = {line.split(": ")[0].removeprefix("GpuPlatform('gpupools') args.") for line in lines}
    assert {"gpu_pools[0].size", "gpu_pools[1].name", "gpu_pools[1].os_skuu"} <= fields
    assert any("did you mean 'os_sku'" in line for line in lines)


def test_rule_errors_name_the_args_not_the_config_keys() -> None:
    mix = {"1g.5gb": 7, "3g.20gb": 2}  # 7 + 6 compute slices: more than an A100's 7
    lines = _refused(
        {
            **EKS,
            "gpu_pools": [
                {"name": "mix", "size": "p4d.24xlarge", "mig": {"layout_mix": mix}},
                {"name": "small", "size": "p4d.24xlarge", "disk_size_gb": 10},
            ],
        }
    )
    fields = {line.split(": ")[0].removeprefix("GpuPlatform('gpupools') args.") for line in lines}
    assert "gpu_pools[0].mig.layout_mix" in fields and "gpu_pools[1].disk_size_gb" in fields


def test_a_per_gpu_layout_is_layout_gpus_and_its_errors_name_it() -> None:
    groups = [{"gpus": 6, "mix": {"1g.5gb": 7}}, {"gpus": 1, "whole": True}]  # 7 of a p4d's 8 GPUs
    lines = _refused({**EKS, "gpu_pools": [{"name": "pergpu", "size": "p4d.24xlarge", "mig": {"layout_gpus": groups}}]})
    fields = {line.split(": ")[0].removeprefix("GpuPlatform('gpupools') args.") for line in lines}
    assert fields == {"gpu_pools[0].mig.layout_gpus"} and "add up to 7" in lines[0]
    both = {"layout_mix": {"1g.5gb": 7}, "layout_gpus": groups}
    lines = _refused({**EKS, "gpu_pools": [{"name": "both", "size": "p4d.24xlarge", "mig": both}]})
    assert any("not both" in line for line in lines)


def test_outputs_where_values_decide_the_plan_are_refused() -> None:
    lines = _refused(
        lambda: {
            **DEV,
            "gpu_pools": [
                {
                    **DEV["gpu_pools"][0],
                    "labels": {"team": pulumi.Output.from_input("a")},
                    "size": pulumi.Output.from_input("Standard_ND96asr_v4"),
                }
            ],
        }
    )
    assert any(
        line.startswith("GpuPlatform('gpupools') args.gpu_pools[0].size: must be a plain value") for line in lines
    )
    assert any(
        line.startswith("GpuPlatform('gpupools') args.gpu_pools[0].labels: must be a plain value") for line in lines
    )


@pytest.mark.parametrize(
    "count, autoscaling, scaling",
    [
        # No autoscaling: the node group's bounds are count..max(count, 1), worked out once the count is known.
        (3, None, {"desiredSize": 3, "minSize": 3, "maxSize": 3}),
        (0, None, {"desiredSize": 0, "minSize": 0, "maxSize": 1}),  # EKS requires maxSize >= 1
        (2, {"min_count": 1, "max_count": 5}, {"desiredSize": 2, "minSize": 1, "maxSize": 5}),
    ],
)
def test_an_output_count_on_aws_sizes_the_node_group_once_known(count, autoscaling, scaling) -> None:
    def args():
        pool = {
            **EKS["gpu_pools"][0],
            "count": pulumi.Output.from_input(count),
            **({"autoscaling": autoscaling} if autoscaling else {}),
        }
        return {**EKS, "gpu_pools": [pool]}

    run = run_platform(args)
    (group,) = [r for r in run.resources if r.type == NODE_GROUP and r.name.startswith("gpupools-p4d-balanced-")]
    assert group.inputs["scalingConfig"] == scaling
    assert run.outputs["total"] == {"p4d-balanced": {name: count * n for name, n in P4D_BALANCED.items()}}


def test_smoke_test_needs_a_plain_count() -> None:
    lines = _refused(
        lambda: {
            **DEV,
            "gpu_pools": [{**DEV["gpu_pools"][0], "count": pulumi.Output.from_input(1), "smoke_test": True}],
        }
    )
    assert lines == [
        "GpuPlatform('gpupools') args.gpu_pools[0].smoke_test: needs a plain count: with count an output, "
        "whether the pool has nodes for the Job is unknown while planning"
    ]


def test_args_that_are_not_a_mapping_or_a_name_that_is_not_a_string() -> None:
    assert _refused(lambda: [DEV]) == [
        "GpuPlatform('gpupools') args: expected a dict of arguments (cloud, cluster, gpu_pools, "
        "gpu_software, custom_sizes, tags, stack_references, demand), got list"
    ]
    assert "resource name must be a non-empty str" in _refused(DEV, name="")[0]
    with pytest.raises(ComponentArgsError):  # checked before the program runs too
        GpuPlatform("x", {**DEV, "cloud": "gcp"})


# --- the args mirror the stack config ------------------------------------------------------------------------

MIRRORS = {
    "StackConfig": "GpuPlatformArgs",
    "ClusterConfig": "ClusterArgs",
    "SystemPool": "SystemPoolArgs",
    "ClusterAutoscalerConfig": "ClusterAutoscalerSettingsArgs",
    "GpuPoolConfig": "GpuPoolArgs",
    "Autoscaling": "PoolAutoscalingArgs",
    "MigConfig": "MigArgs",
    "Sharing": "SharingArgs",
    "TimeSlicing": "TimeSlicingArgs",
    "Mps": "MpsArgs",
    "GpuSoftware": "GpuSoftwareArgs",
    "CustomSize": "CustomSizeArgs",
    "Metrics": "GpuMetricsArgs",
    "LayoutGroup": "MigGpuGroupArgs",
    "KarpenterConfig": "KarpenterSettingsArgs",
    "KarpenterPoolConfig": "KarpenterPoolSettingsArgs",
}


@pytest.mark.parametrize("model", config_models(), ids=lambda model: model.__name__)
def test_every_config_key_is_an_arg_of_the_same_name(model) -> None:
    typed = getattr(platform_args, MIRRORS[model.__name__])
    keys = set(typed.__annotations__)
    expected = set(model.model_fields) | ({"layout_mix", "layout_gpus"} if model.__name__ == "MigConfig" else set())
    assert keys == expected
    required = {name for name, info in model.model_fields.items() if info.is_required()}
    assert required == set(typed.__required_keys__)


# --- the cloud extras ----------------------------------------------------------------------------------------

MISSING_SDK = textwrap.dedent("""\
    import sys

    class Refuse:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in sys.argv[1].split(","):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Refuse())
    try:
        import gpupools.%s
    except ImportError as error:
        print(type(error).__name__, error)
    """)


@pytest.mark.parametrize(
    "package, refused, message",
    [
        (
            "aws",
            "pulumi_aws",
            "gpupools.aws needs the AWS SDKs: pip install 'gpupools[aws]' (pulumi_aws is not installed)",
        ),
        (
            "aws",
            "pulumi_eks",
            "gpupools.aws needs the AWS SDKs: pip install 'gpupools[aws]' (pulumi_eks is not installed)",
        ),
        (
            "azure",
            "pulumi_azure_native",
            "gpupools.azure needs the Azure SDK: pip install 'gpupools[azure]' (pulumi_azure_native is not installed)",
        ),
    ],
)
def test_a_missing_cloud_sdk_names_the_extra_to_install(package, refused, message) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "components")}
    result = subprocess.run(
        [sys.executable, "-c", MISSING_SDK % package, refused], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == f"MissingExtraError {message}", result.stderr


PLAN_WITHOUT_AWS = textwrap.dedent("""\
    import sys

    class Refuse:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in ("pulumi_aws", "pulumi_eks"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Refuse())
    from gpupools.config import read_stack_file
    from gpupools.plan.offline import plan_stack
    plan = plan_stack(read_stack_file(sys.argv[1]))
    print(plan.outputs["gpuPools"]["mig1g"]["resourcesPerNode"])
    """)


def test_an_azure_stack_plans_without_the_aws_extra() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "components")}
    result = subprocess.run(
        [sys.executable, "-c", PLAN_WITHOUT_AWS, str(ROOT / "Pulumi.dev.yaml")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "{'nvidia.com/gpu': 56}"


def test_old_mps_argument_points_at_the_new_one():
    """GpuPlatform args: allow_privileged_host_ipc (the old name) is refused with the new name in one line."""
    from gpupools.platform.inputs import to_stack_config

    args = {
        "cloud": "aws",
        "cluster": {"name": "x", "region": "us-east-1", "system_pool": {"size": "m6i.large"}},
        "gpu_pools": [
            {"name": "g", "size": "g5.12xlarge", "sharing": {"mps": {"replicas": 4, "allow_privileged_host_ipc": True}}}
        ],
        "gpu_software": {"installer": "device-plugin"},
    }
    ((where, message),) = to_stack_config(args)[2]
    assert where == "gpu_pools[0].sharing.mps.allow_privileged_host_ipc"
    assert "allow_privileged_host_pid" in message
