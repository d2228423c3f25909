"""The provider accepts a secret or an output wherever a value is, nested too (issue 25): the engine sends a list or an
object holding a secret as a secret of the whole (``provider/server.py`` ``_select_value``), and output values as
outputs where they sit. Each is mapped to the Python names once it resolves, checked by the component as a plain
value is, and a bad one fails the deployment naming the schema's field; the registered inputs are plain values."""

from __future__ import annotations

import asyncio

import pulumi
import pytest

from gpupools._version import __version__
from gpupools.offline_runtime.mocks import SECRET
from gpupools.provider import COMPONENTS, PACKAGE_NAME, GpuPoolsProvider
from gpupools.testing import RecordingMocks
from support.resources import run_mocked

NODE_GROUP = {
    "clusterName": "gpu-eks",
    "subnetIds": ["subnet-0123456789abcdef0"],
    "nodeRoleArn": "arn:aws:iam::123456789012:role/gpu-eks-nodes",
    "nodeGroupName": "a100",
    "instanceType": "p4d.24xlarge",
    "desiredSize": 1.0,
}
TAINT = {"key": "gpu", "value": "a100", "effect": "NoSchedule"}
NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup"


@pytest.fixture(scope="module")
def provider() -> GpuPoolsProvider:
    return GpuPoolsProvider(COMPONENTS, PACKAGE_NAME, __version__)


def _resolved(value: object) -> object:
    async def wait() -> tuple[object, bool]:
        mapped = value() if callable(value) else value
        return await pulumi.Output.from_input(mapped).future(), await pulumi.Output.from_input(mapped).is_secret()

    return asyncio.run(wait())


def _map(provider: GpuPoolsProvider, component: str, inputs: dict) -> dict:
    return provider.map_inputs(inputs, provider._component_defs[component])


@pytest.mark.parametrize(
    "taints",
    [
        lambda: pulumi.Output.secret([TAINT]),  # a list of objects holding a secret: secret whole
        lambda: [pulumi.Output.secret(TAINT)],  # an output value where it sits
    ],
    ids=["list", "item"],
)
def test_a_secret_list_of_objects_or_item_is_mapped_once_it_resolves(provider: GpuPoolsProvider, taints) -> None:
    def mapped() -> object:
        return _map(provider, "EksGpuNodeGroup", {**NODE_GROUP, "taints": taints()})["taints"]

    assert _resolved(mapped) == ([{"key": "gpu", "value": "a100", "effect": "NoSchedule"}], True)


def test_a_secret_object_is_mapped_and_checked_for_unknown_keys_once_it_resolves(provider: GpuPoolsProvider) -> None:
    cluster = {"name": "gpu", "region": "eastus"}

    def mapped(extra: dict) -> object:
        inputs = {
            "cloud": "azure",
            "cluster": pulumi.Output.secret({**cluster, **extra}),
            "gpuPools": [],
            "gpuSoftware": {"installer": "gpu-operator"},
        }
        return _map(provider, "GpuPlatform", inputs)["cluster"]

    value, secret = _resolved(lambda: mapped({}))
    assert secret and value["name"] == "gpu" and value["region"] == "eastus"
    with pytest.raises(pulumi.InputPropertyError, match="unknown input 'kubernetes_version'.*'kubernetesVersion'"):
        _resolved(lambda: mapped({"kubernetes_version": "1.33"}))


def test_a_secret_integer_nested_in_a_secret_object_is_an_int(provider: GpuPoolsProvider) -> None:
    def mapped() -> object:
        return _map(provider, "AksGpuPool", {**_aks(), "count": pulumi.Output.secret(3.0)})["count"]

    assert _resolved(mapped) == (3, True) and isinstance(_resolved(mapped)[0], int)


def _aks() -> dict:
    return {
        "clusterName": "gpu-dev",
        "resourceGroupName": "gpu-dev-rg",
        "poolName": "mig1g",
        "vmSize": "Standard_ND96asr_v4",
        "count": 1.0,
    }


def _construct(provider: GpuPoolsProvider, inputs: dict) -> tuple[str | None, RecordingMocks]:
    mocks = RecordingMocks()

    def program() -> None:
        provider.construct("gpu", f"{PACKAGE_NAME}:index:EksGpuNodeGroup", {**NODE_GROUP, **inputs()})

    try:
        run_mocked(program, mocks=mocks)
    except Exception as error:  # noqa: BLE001 (the deployment's failure, whatever Pulumi wraps it in)
        return str(error), mocks
    return None, mocks


def test_a_bad_nested_output_fails_the_deployment_in_the_schemas_names(provider: GpuPoolsProvider) -> None:
    failed, mocks = _construct(
        provider, lambda: {"subnetIds": [pulumi.Output.from_input("subnet-0123456789abcdef0"), pulumi.Output.secret(5)]}
    )
    assert failed is not None and "EksGpuNodeGroup('gpu') subnetIds[1]: " in failed and "(once resolved)" in failed
    assert "subnet_ids" not in failed and not [r for r in mocks.resources if r.type == NODE_GROUP_TYPE]


def test_a_bad_label_in_an_output_fails_like_the_plain_one(provider: GpuPoolsProvider) -> None:
    failed, _ = _construct(provider, lambda: {"labels": {"nvidia.com/mig.config": pulumi.Output.secret("all-4g.40gb")}})
    assert failed is not None and "labels: nvidia.com/mig.config: [the value] is not an NVIDIA layout" in failed
    assert "all-4g.40gb" not in failed  # a secret's value is never quoted


def test_good_nested_secrets_register_as_values_each_keeping_its_secretness(provider: GpuPoolsProvider) -> None:
    failed, mocks = _construct(
        provider,
        lambda: {
            "labels": {"team": pulumi.Output.secret("ml"), "tier": "gpu"},
            "taints": [pulumi.Output.secret(TAINT)],
            "desiredSize": pulumi.Output.secret(2.0),
        },
    )
    assert failed is None, failed
    [group] = [r for r in mocks.resources if r.type == NODE_GROUP_TYPE]
    assert group.inputs["labels"] == {"team": SECRET, "tier": "gpu"}
    assert group.inputs["taints"] == [SECRET]  # the taint came as a secret: it stays one, where it sits
    assert group.inputs["scalingConfig"]["desiredSize"] == SECRET
