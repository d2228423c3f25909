"""Pool rotation: a surge pool gets a new cloud name when a field fixed at creation changes, and is replaced
create-first.

Expected facts: AKS pool names are 1..12 lowercase letters and digits starting with a letter (AKS "Create node
pools", naming rules); EKS node group names are unique per cluster (CreateNodegroup ResourceInUseException);
the fields fixed at creation are ``immutable_fields``' tables, each with its source.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pulumi
import pytest

from support.base_configs import AWS, AZURE, config
from gpupools.plan.diff import diff_plans
from gpupools.cli.render import diff_lines, markdown_diff
from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from gpupools.catalog.fixed_fields import AKS_AGENT_POOL, EKS_NODE_GROUP
from gpupools.platform.aws import NODE_GROUP_TYPE
from gpupools.domain.pools import aks_fixed_fields, eks_fixed_fields
from gpupools.domain.rotation import name_clashes
from gpupools.testing import RecordingMocks
from support.resources import plan_one as _only
from support.stack_files import plan_config as _plan

ROOT = Path(__file__).resolve().parents[2]
AKS_NAME = re.compile(r"[a-z][a-z0-9]{0,11}")  # AKS: lowercase letters and digits, starting with a letter, <= 12
AGENT_POOL = "azure-native:containerservice:AgentPool"
NODE_GROUP = "eks:index:ManagedNodeGroup"


def _pool(raw: dict, index: int = 0):
    return load_stack(raw).pools[index]


# --- rotation per pool ---------------------------------------------------------------------------------------


def test_pools_with_nodes_surge_and_empty_pools_recreate_by_default() -> None:
    assert _pool(config(AZURE)).rotation == "surge"
    empty = _pool(config(AZURE, {"count": 0}))
    assert empty.rotation == "recreate" and empty.cloud_pool_name == "mig1g"
    assert _pool(config(AZURE, {"rotation": "recreate"})).cloud_pool_name == "mig1g"
    assert _pool(config(AZURE, {"count": 0, "rotation": "surge"})).cloud_pool_name != "mig1g"


def test_an_unknown_rotation_is_one_error_naming_the_field() -> None:
    with pytest.raises(ConfigError) as error:
        load_stack(config(AZURE, {"rotation": "blue-green"}))
    (line,) = str(error.value).splitlines()
    assert "gpuPools[0].rotation" in line and "blue-green" in line and "recreate" in line and "surge" in line


# --- AKS names -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "mig1g", "gpuworkers1", "abcdefghijkl"])
def test_an_aks_surge_name_is_a_valid_pool_name_that_starts_with_the_config_name(name: str) -> None:
    cloud_name = _pool(config(AZURE, {"name": name})).cloud_pool_name
    assert AKS_NAME.fullmatch(cloud_name) and len(cloud_name) <= 12 and cloud_name != "system"
    assert cloud_name.startswith(name[:7]) and cloud_name != name


def test_the_name_is_the_same_in_another_process() -> None:
    """Stable across runs: no per-process hash seed, no clock, no randomness."""
    script = (
        "import sys; sys.path.insert(0, 'tests'); from support.base_configs import AZURE, config; "
        "from gpupools.resolve import load_stack; print(load_stack(config(AZURE)).pools[0].cloud_pool_name)"
    )
    names = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert names == {_pool(config(AZURE)).cloud_pool_name}


def test_the_aks_generation_covers_exactly_the_fields_fixed_at_creation() -> None:
    assert set(aks_fixed_fields(_pool(config(AZURE)), "preinstalled")) == set(AKS_AGENT_POOL)


# Each changes one AKS_AGENT_POOL field (in brackets) and nothing else the pool is created with.
AKS_FIXED_CHANGES = {
    "vmSize": ({"size": "Standard_ND96amsr_A100_v4"}, {}),
    "gpuInstanceProfile": ({"mig": {"profile": "MIG3g"}}, {}),
    "maxPods": ({"maxPods": 200}, {}),
    "availabilityZones": ({"availabilityZones": ["1"]}, {}),
    "scaleSetPriority": ({"priority": "Spot"}, {}),
    "gpuProfile": (
        {"mig": {"profile": "MIG1g"}},
        {"installer": "gpu-operator", "driver": "operator", "version": "v26.7.0"},
    ),
}


@pytest.mark.parametrize("field", sorted(AKS_FIXED_CHANGES))
def test_each_aks_fixed_field_gives_a_new_name(field: str) -> None:
    pool_change, software = AKS_FIXED_CHANGES[field]
    base, changed = _pool(config(AZURE)), _pool(config(AZURE, pool_change, gpuSoftware=software))
    fixed_before = aks_fixed_fields(base, "preinstalled")
    fixed_after = aks_fixed_fields(changed, "operator" if software.get("driver") == "operator" else "preinstalled")
    assert fixed_before[field] != fixed_after[field]
    assert changed.cloud_pool_name != base.cloud_pool_name


def test_spot_price_and_eviction_policy_each_give_a_new_name() -> None:
    spot = {"priority": "Spot"}
    base = _pool(config(AZURE, spot)).cloud_pool_name
    assert _pool(config(AZURE, {**spot, "spotMaxPrice": 5.5})).cloud_pool_name != base
    assert _pool(config(AZURE, {**spot, "evictionPolicy": "Deallocate"})).cloud_pool_name != base


@pytest.mark.parametrize(
    "change", [{"count": 3}, {"labels": {"example.com/team": "vision"}}, {"osSku": "Ubuntu2204"}, {"diskSizeGb": 512}]
)
def test_changes_made_in_place_keep_the_name(change: dict) -> None:
    assert _pool(config(AZURE, change)).cloud_pool_name == _pool(config(AZURE)).cloud_pool_name


# --- EKS names -----------------------------------------------------------------------------------------------


def test_the_eks_generation_covers_exactly_the_fields_fixed_at_creation() -> None:
    assert set(eks_fixed_fields(_pool(config(AWS)), [], "AL2023_x86_64_NVIDIA")) == set(EKS_NODE_GROUP)


_NETWORK = {"subnetIds": ["subnet-0123456789abcdef0"], "vpcId": "vpc-0123456789abcdef0"}


@pytest.mark.parametrize(
    "change",
    [
        {"size": "p4de.24xlarge"},
        {"capacityType": "SPOT"},
        {"diskSizeGb": 512},
        {"subnetIds": ["subnet-89abcdef"]},
        {"efa": True, "subnetIds": _NETWORK["subnetIds"]},  # EFA brings a launch template (the subnets stay the same)
    ],
)
def test_each_eks_fixed_field_gives_a_new_node_group_name(change: dict) -> None:
    base, changed = _pool(config(AWS, cluster=_NETWORK)), _pool(config(AWS, change, cluster=_NETWORK))
    assert changed.cloud_pool_name != base.cloud_pool_name
    assert re.fullmatch(r"p4d-[a-z0-9]{5}", changed.cloud_pool_name)


def test_a_long_eks_name_is_cut_to_what_the_node_group_component_takes() -> None:
    name = "a" * 54  # the longest pool name on aws
    cloud_name = _pool(config(AWS, {"name": name})).cloud_pool_name
    assert len(cloud_name) == 54 and cloud_name.startswith("a" * 48 + "-")
    assert _pool(config(AWS, {"count": 2})).cloud_pool_name == _pool(config(AWS)).cloud_pool_name


# --- a default written out is the default ----------------------------------------------------------------------

_SUBNETS = {"subnetIds": ["subnet-0123456789abcdef0"], "vpcId": "vpc-0123456789abcdef0"}
_COMPUTED_MAX_PODS = object()  # stands for the maxPods the pool gets when it is left out
# Per fixed field whose default a user can write: (cloud base, the pool without it, the pool with it written out,
# cluster changes). Sources of the defaults: AKS ScaleSetPriority "If not specified, the default is 'Regular'"
# (azure-native AgentPool), Azure Spot "the default max price is -1 if it is not provided", AKS evicts with
# Delete by default (spot-node-pool); the rest are gpupools' documented defaults (README).
WRITTEN_DEFAULTS = {
    "scaleSetPriority": (AZURE, {}, {"priority": "Regular"}, {}),
    "spotMaxPrice": (AZURE, {"priority": "Spot"}, {"priority": "Spot", "spotMaxPrice": -1}, {}),
    "scaleSetEvictionPolicy": (AZURE, {"priority": "Spot"}, {"priority": "Spot", "evictionPolicy": "Delete"}, {}),
    "availabilityZones": (AZURE, {}, {"availabilityZones": []}, {}),
    "maxPods": (AZURE, {}, {"maxPods": _COMPUTED_MAX_PODS}, {}),
    "capacityType": (AWS, {}, {"capacityType": "ON_DEMAND"}, {}),
    "amiType": (AWS, {}, {"amiType": "AL2023_x86_64_NVIDIA"}, {}),
    "diskSize": (AWS, {}, {"diskSizeGb": 256}, {}),
    "subnetIds": (AWS, {}, {"subnetIds": _SUBNETS["subnetIds"]}, _SUBNETS),
}
# Fixed fields no user writes: derived from the size, the MIG plan, the driver or the cluster's role.
NOT_WRITTEN = {"vmSize", "gpuInstanceProfile", "gpuProfile", "instanceTypes", "nodeRoleArn", "launchTemplate.id"}


def test_every_fixed_field_is_either_covered_by_a_written_default_or_not_written() -> None:
    assert set(WRITTEN_DEFAULTS) | NOT_WRITTEN == set(AKS_AGENT_POOL) | set(EKS_NODE_GROUP)


def _written_and_defaulted(field: str) -> tuple[dict, dict]:
    base, defaulted, written, cluster = WRITTEN_DEFAULTS[field]
    without = config(base, defaulted, cluster=cluster)
    if written.get("maxPods") is _COMPUTED_MAX_PODS:
        written = {**written, "maxPods": _pool(without).max_pods}
    return without, config(base, written, cluster=cluster)


@pytest.mark.parametrize("field", sorted(WRITTEN_DEFAULTS))
def test_a_default_written_out_keeps_the_cloud_name(field: str) -> None:
    defaulted, written = _written_and_defaulted(field)
    assert _pool(defaulted).rotation == "surge"
    assert _pool(written).cloud_pool_name == _pool(defaulted).cloud_pool_name


@pytest.mark.parametrize("field", sorted(WRITTEN_DEFAULTS))
def test_a_default_written_out_sends_the_same_inputs(tmp_path: Path, field: str) -> None:
    defaulted, written = _written_and_defaulted(field)
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


# --- names that collide ----------------------------------------------------------------------------------------


def test_a_pool_named_like_another_pools_generation_is_refused() -> None:
    taken = _pool(config(AZURE)).cloud_pool_name
    raw = config(AZURE)
    raw["gpupools:gpuPools"].append(
        {"name": taken, "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}, "rotation": "recreate"}
    )
    with pytest.raises(ConfigError) as error:
        load_stack(raw)
    (line,) = str(error.value).splitlines()
    assert line.startswith("gpupools:gpuPools[1].name")
    assert f"'{taken}'" in line and "gpuPools[0] ('mig1g')" in line and "rotation: recreate" in line


def test_two_surge_pools_whose_truncated_names_and_hashes_meet_are_refused() -> None:
    """Names share their first 7 characters; search for two whose generations collide (the hash is 5 base-36
    characters, so a few thousand candidates suffice), then load them together."""
    from gpupools.domain.naming import cloud_pool_name, generation

    fixed = aks_fixed_fields(_pool(config(AZURE)), "preinstalled")
    seen: dict[str, str] = {}
    pair = None
    for number in range(200_000):
        name = f"workers{number:x}"[:12]
        cloud_name = cloud_pool_name("azure", name, generation(name, fixed))
        if cloud_name in seen:
            pair = (seen[cloud_name], name)
            break
        seen[cloud_name] = name
    assert pair is not None
    raw = copy.deepcopy(config(AZURE))
    raw["gpupools:gpuPools"] = [
        {"name": name, "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}} for name in pair
    ]
    with pytest.raises(ConfigError) as error:
        load_stack(raw)
    assert str(error.value).startswith("gpupools:gpuPools[1].name: its cloud pool name")


def test_the_aks_system_pool_name_is_reserved() -> None:
    assert name_clashes("azure", [(0, "s", "system")]) == [
        (0, "its cloud pool name 'system' (from 's') is reserved; rename the pool or set rotation: recreate")
    ]
    assert name_clashes("aws", [(0, "system", "system")]) == []


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


# --- the capacity diff -------------------------------------------------------------------------------------------


def _mig3g(raw: dict) -> dict:
    return config(raw, {"mig": {"profile": "MIG3g"}}, gpuSoftware={"migStrategy": "mixed"})


def test_the_diff_says_a_surge_pool_is_created_before_the_old_one_is_deleted(tmp_path: Path) -> None:
    fixed_pods = config(AZURE, {"maxPods": 110})  # else maxPods, sized from the slices, changes with the profile
    base, head = _plan(tmp_path, fixed_pods, "base").to_json(), _plan(tmp_path, _mig3g(fixed_pods), "head").to_json()
    (pool,) = diff_plans(base, head).pools
    old, new = (plan["outputs"]["gpuPools"]["mig1g"]["cloudPoolName"] for plan in (base, head))
    assert old != new and pool.change == "replaced"
    assert pool.replaced_by == ("gpuInstanceProfile", "agentPoolName")
    replacement = pool.to_json()["replacement"]
    assert (replacement["rotation"], replacement["oldName"], replacement["newName"]) == ("surge", old, new)
    line = f"surge: new pool {new} is created before {old} is deleted (up to 16 GPUs meanwhile)"
    assert replacement["description"] == line
    assert any(line in text for text in diff_lines(diff_plans(base, head)))
    assert any(line in text for text in markdown_diff(diff_plans(base, head)))


def test_the_diff_says_a_recreated_pool_loses_its_capacity_first(tmp_path: Path) -> None:
    recreate = {"rotation": "recreate", "maxPods": 110}
    base = _plan(tmp_path, config(AZURE, recreate), "base").to_json()
    head = _plan(tmp_path, _mig3g(config(AZURE, recreate)), "head").to_json()
    (pool,) = diff_plans(base, head).pools
    assert pool.replaced_by == ("gpuInstanceProfile",)
    assert pool.to_json()["replacement"]["description"] == (
        "recreate: mig1g is deleted first, its capacity (8 GPUs) is gone until mig1g is up"
    )


def test_upgrading_renames_a_pool_deployed_under_its_plain_name_once(tmp_path: Path) -> None:
    """A base planned before rotation existed: the agent pool had the config name and no rotation output."""
    head = _plan(tmp_path, config(AZURE), "head").to_json()
    base = json.loads(json.dumps(head))
    for resource in base["resources"]:
        if resource["type"] == AGENT_POOL:
            resource["inputs"]["agentPoolName"] = "mig1g"
            resource["options"]["deleteBeforeReplace"] = True
    for output in base["outputs"]["gpuPools"].values():
        output.pop("cloudPoolName"), output.pop("rotation")
    (pool,) = diff_plans(base, head).pools
    assert pool.change == "replaced" and pool.replaced_by == ("agentPoolName",)
    assert pool.replacement.rotation == "surge" and pool.replacement.old_name == "mig1g"
    assert not diff_plans(base, head).removes_capacity
