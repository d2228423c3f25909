"""Pool rotation in what the components are given, under Pulumi's mocks: a surge pool is created first under its
generation name, a recreated one is deleted first, and a default written out sends the same inputs.

Moved from tests/domain/test_rotation.py (the names themselves are checked there, without running the program).
Expected facts: the fields fixed at creation are ``immutable_fields``' tables, each with its source; pulumi-eks's
ManagedNodeGroup is a remote component, so only a transform reaches its aws.eks.NodeGroup.
"""

from __future__ import annotations

from pathlib import Path

import pulumi
import pytest

from support.base_configs import AWS, AZURE, config
from support.resources import plan_one as _only
from support.rotation_cases import WRITTEN_DEFAULTS, written_and_defaulted
from support.stack_files import plan_config as _plan
from gpupools.catalog.fixed_fields import AKS_AGENT_POOL
from gpupools.domain.pools import aks_fixed_fields
from gpupools.platform.aws import NODE_GROUP_TYPE
from gpupools.plan.diff import diff_plans
from gpupools.resolve.stack_loader import load_stack
from gpupools.testing import RecordingMocks

AGENT_POOL = "azure-native:containerservice:AgentPool"
NODE_GROUP = "eks:index:ManagedNodeGroup"


@pytest.mark.parametrize("field", sorted(WRITTEN_DEFAULTS))
def test_a_default_written_out_sends_the_same_inputs(tmp_path: Path, field: str) -> None:
    defaulted, written = written_and_defaulted(field)
    kind, labels = (AGENT_POOL, "nodeLabels") if defaulted["gpupools:cloud"] == "azure" else (NODE_GROUP, "labels")
    pool = defaulted["gpupools:gpuPools"][0]["name"]
    before, after = (
        [
            r
            for r in _plan(tmp_path, raw, name).resources
            if r["type"] == kind and r["inputs"].get(labels, {}).get("gpupools.io/pool") == pool
        ]
        for raw, name in ((defaulted, "same"), (written, "same"))
    )
    assert len(before) == 1 and after[0]["inputs"] == before[0]["inputs"]


# --- what the components are given, under mocks ----------------------------------------------------------------


def test_aks_surge_pool_is_created_first_under_its_generation_name(tmp_path: Path) -> None:
    plan = _plan(tmp_path, config(AZURE, {"maxPods": 120, "availabilityZones": ["2"]}), "rot")
    pool = load_stack(config(AZURE, {"maxPods": 120, "availabilityZones": ["2"]})).pools[0]
    agent_pool = _only(plan, AGENT_POOL)
    assert agent_pool["name"] == "mig1g-pool"  # the logical name stays: count or label changes update in place
    assert agent_pool["inputs"]["agentPoolName"] == pool.cloud_pool_name != "mig1g"
    assert agent_pool["options"]["deleteBeforeReplace"] is False
    assert agent_pool["options"]["replaceOnChanges"] == sorted(AKS_AGENT_POOL)
    assert agent_pool["inputs"]["nodeLabels"]["gpupools.io/pool"] == "mig1g"
    # What the generation hashed is what the agent pool is created with.
    hashed = {k: v for k, v in aks_fixed_fields(pool, "preinstalled").items() if v is not None}
    assert {k: agent_pool["inputs"][k] for k in hashed} == hashed
    assert set(AKS_AGENT_POOL) - set(hashed) == {k for k in AKS_AGENT_POOL if k not in agent_pool["inputs"]}
    output = plan.outputs["gpuPools"]["mig1g"]
    assert (output["cloudPoolName"], output["rotation"]) == (pool.cloud_pool_name, "surge")
    assert output["nodeSelector"]["gpupools.io/pool"] == "mig1g"


def test_aks_recreate_pool_keeps_its_name_and_is_deleted_first(tmp_path: Path) -> None:
    plan = _plan(tmp_path, config(AZURE, {"rotation": "recreate"}), "rot")
    agent_pool = _only(plan, AGENT_POOL)
    assert agent_pool["inputs"]["agentPoolName"] == "mig1g"
    assert agent_pool["options"]["deleteBeforeReplace"] is True
    assert agent_pool["options"]["replaceOnChanges"] == sorted(AKS_AGENT_POOL)
    assert plan.outputs["gpuPools"]["mig1g"]["cloudPoolName"] == "mig1g"


class _TransformRecorder(RecordingMocks):
    """Keeps the transforms each component declares (the mock monitor never runs them)."""

    def __init__(self) -> None:
        super().__init__()
        self.transforms: dict[str, list] = {}

    def new_resource(self, args):
        if args.transforms:
            self.transforms[args.name] = list(args.transforms)
        return super().new_resource(args)


@pytest.mark.parametrize("rotation, delete_first", [("surge", False), ("recreate", True)])
def test_eks_node_group_name_and_the_transform_that_orders_its_replacement(tmp_path, rotation, delete_first) -> None:
    """pulumi-eks's ManagedNodeGroup is remote: options on it never reach its aws.eks.NodeGroup, a transform does."""
    from gpupools.testing import run_program
    from gpupools.platform.program import main as program
    from gpupools.plan.offline import pulumi_config_values

    raw = config(AWS, {"rotation": rotation})
    pool = load_stack(raw).pools[0]
    mocks = _TransformRecorder()
    run = run_program(program, project="gpupools", stack="rot", config=pulumi_config_values(raw), mocks=mocks)
    (group,) = [
        r for r in run.resources if r.type == NODE_GROUP and r.inputs["labels"].get("gpupools.io/pool") == "p4d"
    ]
    assert group.inputs["nodeGroupName"] == pool.cloud_pool_name
    assert (pool.cloud_pool_name == "p4d") is (rotation == "recreate")
    (transform,) = mocks.transforms["p4d"]
    opts = pulumi.ResourceOptions(parent=None)
    result = transform(pulumi.ResourceTransformArgs(True, NODE_GROUP_TYPE, "p4d-ng", {"nodeGroupName": "x"}, opts))
    assert result.opts.delete_before_replace is delete_first and result.props == {"nodeGroupName": "x"}
    other = pulumi.ResourceTransformArgs(True, "aws:ec2/launchTemplate:LaunchTemplate", "lt", {}, opts)
    assert transform(other) is None


def _serialised_transform_options(opts: pulumi.ResourceOptions):
    """What the SDK sends the engine for a transform's options (``TransformResourceOptions``), as ``pulumi up`` does."""
    import asyncio

    from pulumi.runtime._callbacks import _CallbackServicer

    return asyncio.run(_CallbackServicer._transformation_resource_options(None, opts, "p4d-ng"))


@pytest.mark.parametrize("rotation, reaches_engine", [("surge", False), ("recreate", True)])
def test_the_transforms_order_reaches_the_engine_only_for_delete_first(rotation, reaches_engine) -> None:
    """The protobuf the engine receives: a transform's delete_before_replace=False is never set, so the provider's
    delete-first for a named node group stands; True is sent."""
    from gpupools.platform.aws import node_group_rotation

    opts = pulumi.ResourceOptions(parent=None)
    result = node_group_rotation(rotation)(
        pulumi.ResourceTransformArgs(True, NODE_GROUP_TYPE, "p4d-ng", {"nodeGroupName": "x"}, opts)
    )
    sent = _serialised_transform_options(result.opts)
    assert sent.HasField("delete_before_replace") is reaches_engine
    assert sent.delete_before_replace is reaches_engine


def test_the_plan_says_an_eks_surge_creates_first(tmp_path: Path) -> None:
    """Issue 27: each generation is a resource of its own (tests/plan/test_eks_surge_create_first.py)."""
    stack = load_stack(config(AWS, {"count": 2}))
    from gpupools.domain.rotation import surge_warnings

    (warning,) = surge_warnings(stack.pools)
    assert "creates the new pool before deleting the old one, so 32" in warning
    base, head = (
        _plan(tmp_path, config(AWS, {"count": 2, **change}), name).to_json()
        for change, name in (({}, "base"), ({"diskSizeGb": 512}, "head"))
    )
    (pool,) = diff_plans(base, head).pools
    old, new = (plan["outputs"]["gpuPools"]["p4d"]["cloudPoolName"] for plan in (base, head))
    assert old != new
    assert pool.replacement.describe(pool.gpus) == (
        f"surge: new pool {new} is created before {old} is deleted (up to 32 GPUs meanwhile)"
    )
    assert pool.replacement.order == "create-first" and not pool.outage


@pytest.mark.parametrize("given, sent", [(None, True), (True, True), (False, False)])
def test_a_node_group_gpupools_registers_itself_sends_its_order_to_the_engine(given, sent) -> None:
    """The aws.eks.NodeGroup path: the RegisterResourceRequest carries deleteBeforeReplace with
    deleteBeforeReplaceDefined, which the engine honours over the provider's default (step_generator.go)."""
    from gpupools.aws import EksGpuNodeGroup
    from gpupools.testing import run_program

    def program():
        EksGpuNodeGroup(
            "p4d",
            {
                "cluster_name": "gpu-eks",
                "subnet_ids": ["subnet-0123456789abcdef0"],
                "node_role_arn": "arn:aws:iam::123456789012:role/n",
                "node_group_name": "p4d-a1b2c",
                "instance_type": "p4d.24xlarge",
                "desired_size": 1,
            },
            pulumi.ResourceOptions(delete_before_replace=given),
        )

    run = run_program(program, project="rot", stack="test", config={}, mocks=RecordingMocks())
    (group,) = [r for r in run.resources if r.type == NODE_GROUP_TYPE]
    assert group.options["deleteBeforeReplace"] is sent


@pytest.mark.parametrize(("pool", "alias"), [({}, False), ({"mig": None}, True), ({"rotation": "recreate"}, False)])
def test_an_operator_cut_surge_group_drops_the_alias_to_0_2_0s_group(tmp_path: Path, pool: dict, alias: bool) -> None:
    """Its name hashes the layout, so never 0.2.0's: an alias to ``p4d-ng`` would make the upgrade delete-first.
    A surge group without MIG keeps it (its name may be 0.2.0's); a recreate group is ``p4d-ng`` itself."""
    raw = config(AWS, pool)
    raw["gpupools:gpuPools"][0] = {k: v for k, v in raw["gpupools:gpuPools"][0].items() if v is not None}
    (group,) = [
        r
        for r in _plan(tmp_path, raw, "alias").resources
        if r["type"] == NODE_GROUP and r["inputs"]["labels"].get("gpupools.io/pool") == "p4d"
    ]
    names = [a.get("name") for a in (group["options"].get("aliases") or [])]
    assert names == (["p4d-ng"] if alias else [])
    assert (group["name"] == "p4d-ng") is (load_stack(raw).pools[0].rotation == "recreate")
