"""What the package schema tells other languages beyond the analyzer's types: secret kubeconfigs and enums taken
from the tables ``check`` uses; and the provider serves that same schema."""

from __future__ import annotations

import json
from typing import Any, Literal, get_args, get_origin

import pytest


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    from gpupools.provider import package_schema

    return package_schema()


@pytest.mark.parametrize("component", ["AksCluster", "EksCluster", "GpuPlatform"])
def test_kubeconfig_outputs_are_secret(schema: dict[str, Any], component: str) -> None:
    kubeconfig = schema["resources"][f"gpupools:index:{component}"]["properties"]["kubeconfig"]
    assert kubeconfig["secret"] is True and kubeconfig["type"] == "string"


def test_no_other_output_is_marked_secret(schema: dict[str, Any]) -> None:
    secret = {
        (token, name)
        for token, resource in schema["resources"].items()
        for name, prop in resource["properties"].items()
        if prop.get("secret")
    }
    assert {name for _, name in secret} == {"kubeconfig"}


def _field_values(model: Any, field: str) -> set[str]:
    """A config model field's Literal values (``Literal[...] | None`` unwrapped), read from pydantic's own record."""
    annotation = model.model_fields[field].annotation
    if get_origin(annotation) is not Literal:
        annotation = next(arg for arg in get_args(annotation) if arg is not type(None))
    literal = annotation
    return set(get_args(literal))


def _tables() -> dict[tuple[str, str, str], set[str]]:
    from gpupools.catalog.clouds import AKS_GPU_INSTANCE_PROFILES, AMI_TYPES, OS_SKUS
    from gpupools.catalog.installers import INSTALLERS
    from gpupools.config import models

    pool, software = models.GpuPoolConfig, models.GpuSoftware
    return {
        ("types", "GpuSoftwareArgs", "installer"): set(INSTALLERS),
        ("types", "GpuSoftwareArgs", "migStrategy"): set(get_args(models.MigStrategy)),
        ("types", "GpuSoftwareArgs", "driver"): _field_values(software, "driver"),
        ("types", "GpuPoolArgs", "osSku"): set(OS_SKUS),
        ("types", "GpuPoolArgs", "amiType"): set(AMI_TYPES),
        ("types", "GpuPoolArgs", "capacityType"): _field_values(pool, "capacity_type"),
        ("types", "GpuPoolArgs", "priority"): _field_values(pool, "priority"),
        ("types", "GpuPoolArgs", "evictionPolicy"): _field_values(pool, "eviction_policy"),
        ("types", "GpuPoolArgs", "rotation"): set(get_args(models.Rotation)),
        ("types", "ClusterAutoscalerSettingsArgs", "expander"): set(get_args(models.Expander)),
        ("resources", "ClusterAutoscaler", "expander"): set(get_args(models.Expander)),
        ("resources", "AksGpuPool", "osSku"): set(OS_SKUS),
        ("resources", "AksGpuPool", "gpuInstanceProfile"): set(AKS_GPU_INSTANCE_PROFILES),
        ("resources", "AksGpuPool", "scaleSetPriority"): _field_values(pool, "priority"),
        ("resources", "AksGpuPool", "scaleSetEvictionPolicy"): _field_values(pool, "eviction_policy"),
        ("resources", "EksGpuNodeGroup", "amiType"): set(AMI_TYPES),
        ("resources", "EksGpuNodeGroup", "capacityType"): _field_values(pool, "capacity_type"),
    }


@pytest.mark.parametrize("where", sorted(_tables()), ids=lambda where: ".".join(where[1:]))
def test_enumerated_values_are_schema_enums_equal_to_their_table(
    schema: dict[str, Any], where: tuple[str, str, str]
) -> None:
    kind, owner, name = where
    holder = schema[kind][f"gpupools:index:{owner}"]
    prop = (holder["inputProperties"] if kind == "resources" else holder["properties"])[name]
    assert "type" not in prop and prop["$ref"].startswith("#/types/gpupools:index:"), prop
    enum = schema["types"][prop["$ref"].removeprefix("#/types/")]
    assert enum["type"] == "string"
    values = [member["value"] for member in enum["enum"]]
    assert len(values) == len(set(values)) and set(values) == _tables()[where]
    assert prop.get("description"), f"{owner}.{name} lost its description"


def test_plain_inputs_stay_plain_when_they_become_enums(schema: dict[str, Any]) -> None:
    software = schema["types"]["gpupools:index:GpuSoftwareArgs"]["properties"]
    assert software["installer"]["plain"] is True


def test_the_provider_serves_the_finished_schema(schema: dict[str, Any]) -> None:
    from gpupools._version import __version__
    from gpupools.provider import COMPONENTS, PACKAGE_NAME, GpuPoolsProvider

    served = json.loads(GpuPoolsProvider(COMPONENTS, PACKAGE_NAME, __version__).schema or "{}")
    assert served == schema
