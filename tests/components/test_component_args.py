"""Components used from someone else's stack refuse bad arguments before registering anything.

Each case runs a program under the recording mocks that builds one component with one bad argument: it
must raise a TypeError/ValueError naming the argument, and the mocks must have seen no resource at all
(not even the component). Good arguments still register what they did.
"""

from __future__ import annotations

import pytest

from gpupools.testing import RecordingMocks, run_program
from support.component_inputs import AKS_MIG1G_POOL

TAINT = "nvidia.com/gpu=present:NoSchedule"
AKS_POOL = {**AKS_MIG1G_POOL, "node_taints": [TAINT]}
AKS_CLUSTER = {"name": "gpu-dev", "resource_group_name": "gpu-dev-rg", "location": "southcentralus"}
CHART = {"version": "0.20.0", "namespace": "nvidia-device-plugin", "values": {}}
SMOKE = {
    "pool_name": "mig1g",
    "namespace": "nvidia-device-plugin",
    "resources": ["nvidia.com/gpu"],
    "node_selector": {"gpupools.io/pool": "mig1g"},
    "toleration_key": "nvidia.com/gpu",
}


def _component(kind: str):
    from gpupools import provider

    return {c.__name__: c for c in provider.COMPONENTS}[kind]


def _replace(base: dict, **changes) -> dict:
    args = {**base, **changes}
    return {key: value for key, value in args.items() if value is not _DROP}


_DROP = object()

BAD = [
    ("AksGpuPool", None, "args: expected a dict"),
    ("AksGpuPool", _replace(AKS_POOL, vm_size=_DROP), "args.vm_size: is required"),
    ("AksGpuPool", _replace(AKS_POOL, count="three"), "args.count"),
    ("AksGpuPool", _replace(AKS_POOL, pool_name="BAD NAME!"), "args.pool_name"),
    ("AksGpuPool", _replace(AKS_POOL, gpu_instance_profile="MIG9g"), "args.gpu_instance_profile"),
    ("AksGpuPool", _replace(AKS_POOL, min_count=0), "args.min_count: autoscaling needs both"),
    ("AksGpuPool", _replace(AKS_POOL, minCount=0), "unknown argument 'minCount'; did you mean 'min_count'"),
    ("AksGpuPool", _replace(AKS_POOL, node_taints=TAINT), "args.node_taints"),
    ("AksGpuPool", _replace(AKS_POOL, node_taints=["nvidia.com/gpu:NoSchedule"]), "args.node_taints[0]"),
    ("AksGpuPool", _replace(AKS_POOL, max_pods=251), "args.max_pods"),
    ("AksGpuPool", _replace(AKS_POOL, availability_zones=["4"]), "args.availability_zones[0]"),
    ("AksGpuPool", _replace(AKS_POOL, spot_max_price=0.5), "args.spot_max_price: only for scale_set_priority 'Spot'"),
    ("AksCluster", None, "args: expected a dict"),
    ("AksCluster", _replace(AKS_CLUSTER, location=_DROP), "args.location: is required when create is true"),
    ("AksCluster", _replace(AKS_CLUSTER, system_pool_count="three"), "args.system_pool_count"),
    ("AksCluster", _replace(AKS_CLUSTER, pod_cidr="10.244.0.0/33"), "args.pod_cidr"),
    ("EksCluster", {"name": "gpu eks!"}, "args.name"),
    ("EksCluster", {"name": "gpu-eks", "vpc_id": "vpc-0123456789abcdef0"}, "args.vpc_id: needs subnet_ids"),
    ("EksCluster", {"name": "gpu-eks", "subnetIds": []}, "did you mean 'subnet_ids'"),
    ("NvidiaDevicePlugin", None, "args: expected a dict"),
    ("NvidiaDevicePlugin", _replace(CHART, version="latest"), "args.version: 'latest' is not an exact"),
    ("NvidiaGpuOperator", _replace(CHART, version="26.7.0"), "args.version"),  # the operator spells it v26.7.0
    ("NvidiaDevicePlugin", _replace(CHART, version="0.20.0\n"), "args.version"),  # a trailing newline is not exact
    ("NvidiaDcgmExporter", _replace(CHART, version="v4.8.2"), "args.version"),  # the repo publishes 4.8.2
    ("NvidiaDraDriver", _replace(CHART, version="latest"), "args.version: 'latest' is not an exact"),
    ("NvidiaDevicePlugin", _replace(CHART, namespace="Not A Namespace"), "args.namespace"),
    ("NvidiaDevicePlugin", _replace(CHART, values=_DROP), "args.values: is required"),
    ("GpuSmokeTest", None, "args: expected a dict"),
    ("GpuSmokeTest", _replace(SMOKE, resources="nvidia.com/gpu"), "args.resources"),
    ("GpuSmokeTest", _replace(SMOKE, pool_name="BAD NAME!"), "args.pool_name"),
    ("GpuSmokeTest", _replace(SMOKE, image="nvcr.io/nvidia/cuda:latest"), "args.image"),
]


@pytest.mark.parametrize(("kind", "args", "expected"), BAD, ids=[f"{k}-{e}" for k, _, e in BAD])
def test_bad_arguments_raise_before_anything_is_registered(kind: str, args, expected: str) -> None:
    component = _component(kind)
    mocks = RecordingMocks()

    def program():
        component("bad", args)

    with pytest.raises((TypeError, ValueError)) as caught:
        run_program(program, project="args", stack="test", config={}, mocks=mocks)
    assert expected in str(caught.value), str(caught.value)
    assert str(caught.value).startswith(f"{kind}('bad') args")
    assert mocks.resources == [], [r.name for r in mocks.resources]


def _eks_group_error(**changes) -> str:
    """EksGpuNodeGroup needs a cluster object; the bad argument is checked before it is used."""
    from gpupools.aws import EksCluster, EksGpuNodeGroup

    mocks = RecordingMocks()
    caught: list[str] = []

    def program():
        cluster = EksCluster("gpu-eks", {"name": "gpu-eks"})
        args = {
            "cluster": cluster.cluster,
            "node_group_name": "a100",
            "instance_type": "p4d.24xlarge",
            "desired_size": 1,
            **changes,
        }
        try:
            EksGpuNodeGroup("a100", args)
        except (TypeError, ValueError) as error:
            caught.append(str(error))

    run = run_program(program, project="args", stack="test", config={}, mocks=mocks)
    assert not [r for r in run.resources if r.name.startswith("a100")]
    assert caught, "no error raised"
    return caught[0]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"cluster": "gpu-eks"}, "args.cluster: allowed: a pulumi_eks Cluster object"),
        ({"node_group_name": "BAD NAME!"}, "args.node_group_name"),
        ({"desired_size": "three"}, "args.desired_size"),
        ({"capacity_type": "RESERVED"}, "args.capacity_type"),
        (
            {"capacity_type": "CAPACITY_BLOCK"},
            "args.capacity_reservation: is required with capacity type CAPACITY_BLOCK",
        ),
        (
            {
                "capacity_type": "CAPACITY_BLOCK",
                "capacity_reservation": "arn:aws:resource-groups:us-east-1:123456789012:group/b",
            },
            "args.capacity_reservation: capacity type CAPACITY_BLOCK needs the Capacity Block's reservation id",
        ),
        ({"capacity_reservation": "my-reservation"}, "args.capacity_reservation: 'my-reservation' is not a capacity"),
        ({"efa_interfaces": 4}, "args.efa_interfaces: only with efa true"),
        ({"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]}, "args.taints[0].effect"),
        ({"ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}, "args.ami_type: Bottlerocket runs its own NVIDIA device plugin"),
    ],
)
def test_eks_node_group_refuses_bad_arguments(changes: dict, expected: str) -> None:
    assert expected in _eks_group_error(**changes)


STRINGS = {
    "cluster_name": "gpu-eks",
    "subnet_ids": ["subnet-0123456789abcdef0"],
    "node_group_name": "a100",
    "instance_type": "p4d.24xlarge",
    "desired_size": 1,
}
ROLE_ARN = "arn:aws:iam::123456789012:role/gpu-eks-nodes"
_CLUSTER = object()  # stands for the test's pulumi-eks Cluster
_ROLE = object()  # stands for the EksCluster's node role


def _eks_strings_error(args: dict) -> str:
    """EksGpuNodeGroup with the cluster named by strings; ``_CLUSTER``/``_ROLE`` become real objects."""
    from gpupools.aws import EksCluster, EksGpuNodeGroup

    mocks = RecordingMocks()
    caught: list[str] = []

    def program():
        cluster = EksCluster("gpu-eks", {"name": "gpu-eks"})
        real = {_CLUSTER: cluster.cluster, _ROLE: cluster.node_role}
        try:
            EksGpuNodeGroup(
                "a100",
                {key: real.get(value, value) if not isinstance(value, list) else value for key, value in args.items()},
            )
        except (TypeError, ValueError) as error:
            caught.append(str(error))

    run_program(program, project="args", stack="test", config={}, mocks=mocks)
    assert not [r for r in mocks.resources if r.name.startswith("a100")], "registered despite bad args"
    assert caught, "no error raised"
    assert caught[0].startswith("EksGpuNodeGroup('a100') args")
    return caught[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({**STRINGS, "cluster_name": _DROP}, "args.cluster_name: is required (with subnet_ids), or cluster"),
        ({**STRINGS, "cluster": _CLUSTER}, "args.cluster_name: give cluster (a pulumi-eks Cluster) or cluster_name"),
        ({**STRINGS, "subnet_ids": _DROP}, "args.subnet_ids: is required with cluster_name"),
        ({**STRINGS, "subnet_ids": []}, "args.subnet_ids: is required with cluster_name"),
        ({**STRINGS, "node_role": _ROLE}, "args.node_role: only with cluster; with cluster_name give node_role_arn"),
        (
            {**STRINGS, "cluster_name": _DROP, "cluster": _CLUSTER, "node_role": _ROLE, "node_role_arn": ROLE_ARN},
            "args.node_role_arn: give node_role or node_role_arn, not both",
        ),
        ({**STRINGS, "node_role_arn": "gpu-eks-nodes"}, "args.node_role_arn: allowed: an IAM role ARN"),
        (
            {**STRINGS, "node_role_arn": "arn:aws:iam::123456789012:user/someone"},
            "args.node_role_arn: allowed: an IAM role ARN",
        ),
        ({**STRINGS, "cluster_name": "gpu eks!"}, "args.cluster_name: allowed: 1..100 letters"),
        ({**STRINGS, "subnet_ids": ["sub-1"]}, "args.subnet_ids[0]"),
    ],
    ids=[
        "neither",
        "both",
        "no-subnets",
        "empty-subnets",
        "role-object-with-strings",
        "role-twice",
        "role-not-arn",
        "user-arn",
        "bad-cluster-name",
        "bad-subnet",
    ],
)
def test_eks_node_group_takes_one_way_to_the_cluster(args: dict, expected: str) -> None:
    assert expected in _eks_strings_error({k: v for k, v in args.items() if v is not _DROP})


def test_outputs_pass_unchecked_and_good_args_register_as_before() -> None:
    import pulumi

    from gpupools.azure import AksGpuPool

    def program():
        cluster = pulumi.Output.from_input("gpu-dev")
        AksGpuPool("mig1g", {**AKS_POOL, "cluster_name": cluster, "count": pulumi.Output.from_input(2)})

    run = run_program(program, project="args", stack="test", config={})
    assert [r.type for r in run.resources] == ["gpupools:index:AksGpuPool", "azure-native:containerservice:AgentPool"]
    inputs = run.resources[1].inputs
    assert inputs["resourceName"] == "gpu-dev" and inputs["count"] == 2


def test_args_module_is_pure() -> None:
    import subprocess
    import sys

    code = (
        "import sys, gpupools.component_args, gpupools.catalog.fixed_fields; "
        "print(sorted(m for m in sys.modules if m.split('.')[0].startswith('pulumi')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
