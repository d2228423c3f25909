"""The provider speaks its schema (issue 25): unknown keys (snake_case ones too) and unknown types are refused with
a did-you-mean in the schema's camelCase names, integers that are secrets or outputs are accepted, fractions not."""

from __future__ import annotations

import asyncio

import pulumi
import pytest

from gpupools._version import __version__
from gpupools.provider import COMPONENTS, PACKAGE_NAME, GpuPoolsProvider, _schema_names

POOL = {
    "clusterName": "gpu-dev",
    "resourceGroupName": "gpu-dev-rg",
    "poolName": "mig1g",
    "vmSize": "Standard_ND96asr_v4",
    "count": 1.0,
}


@pytest.fixture(scope="module")
def provider() -> GpuPoolsProvider:
    return GpuPoolsProvider(COMPONENTS, PACKAGE_NAME, __version__)


def _map(provider: GpuPoolsProvider, inputs: dict) -> dict:
    return provider.map_inputs(inputs, provider._component_defs["AksGpuPool"])


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("node_labels", "unknown input 'node_labels' on AksGpuPool; did you mean 'nodeLabels'?"),
        ("nodeLabel", "unknown input 'nodeLabel' on AksGpuPool; did you mean 'nodeLabels'?"),
        ("zzz", "unknown input 'zzz' on AksGpuPool; known: "),
    ],
)
def test_an_unknown_key_is_refused_in_the_schemas_names(provider: GpuPoolsProvider, key: str, says: str) -> None:
    with pytest.raises(pulumi.InputPropertyError) as error:
        _map(provider, {**POOL, key: {"a": "b"}})
    assert says in str(error.value)


def test_an_unknown_type_is_one_clear_error(provider: GpuPoolsProvider) -> None:
    with pytest.raises(ValueError) as error:
        provider.construct("x", "gpupools:index:AksGpuPol", {})
    assert str(error.value) == "'gpupools:index:AksGpuPol' is not a gpupools component; did you mean 'AksGpuPool'?"


def test_a_secret_integer_is_accepted_and_stays_secret(provider: GpuPoolsProvider) -> None:
    async def resolved() -> tuple[object, bool]:
        count = _map(provider, {**POOL, "count": pulumi.Output.secret(2.0)})["count"]
        return await count.future(), await count.is_secret()

    assert asyncio.run(resolved()) == (2, True)


def test_a_whole_float_is_an_int_and_a_fraction_is_refused(provider: GpuPoolsProvider) -> None:
    assert _map(provider, POOL)["count"] == 1 and isinstance(_map(provider, POOL)["count"], int)
    with pytest.raises(pulumi.InputPropertyError, match="count is 1.5, not a whole number"):
        _map(provider, {**POOL, "count": 1.5})


def test_component_errors_name_the_schemas_inputs() -> None:
    message = "AksGpuPool('gpu') args.node_labels: bad; args.node_taints[0].effect: bad"
    assert _schema_names(message) == "AksGpuPool('gpu') nodeLabels: bad; nodeTaints[0].effect: bad"
