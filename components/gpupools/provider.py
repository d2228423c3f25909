"""The components other languages get through ``pulumi package add``, and the offline schema of that package.

Importing this module loads both cloud SDKs (the provider hosts every component); programs in Python
import the cloud subpackage they need instead.
"""

from __future__ import annotations

import json
from typing import Any, Literal, get_args, get_origin

import pulumi

from ._version import __version__
from .aws.cluster import EksCluster
from .aws.gpu_node_group import EksGpuNodeGroup
from .azure.cluster import AksCluster
from .azure.gpu_pool import AksGpuPool
from .kubernetes.dcgm_exporter import NvidiaDcgmExporter
from .kubernetes.nvidia_releases import NvidiaDevicePlugin, NvidiaDraDriver, NvidiaGpuOperator
from .kubernetes.smoke_test import GpuSmokeTest
from .kubernetes.cluster_autoscaler import ClusterAutoscaler
from .platform.component import GpuPlatform
from .pulumi_internals import generate_component_schema
from .pulumi_internals.provider_host import ComponentProvider
from .untrusted.strict_json import strict_loads

PACKAGE_NAME = "gpupools"
COMPONENTS: list[type[pulumi.ComponentResource]] = [
    AksCluster,
    AksGpuPool,
    EksCluster,
    EksGpuNodeGroup,
    NvidiaDevicePlugin,
    NvidiaGpuOperator,
    NvidiaDraDriver,
    NvidiaDcgmExporter,
    GpuSmokeTest,
    ClusterAutoscaler,
    GpuPlatform,
]


def package_schema() -> dict[str, Any]:
    """The Pulumi package schema the provider serves, generated offline from the type annotations."""
    spec = generate_component_schema(PACKAGE_NAME, __version__, list(COMPONENTS))
    return finish_schema(spec.to_json() if hasattr(spec, "to_json") else spec)


# Pulumi's analyzer (pulumi/provider/experimental/analyzer.py) has no way to mark a property secret and makes
# enums only from Python ``Enum`` classes (a ``Literal`` is not read; Enum args would change the Python API, where
# plain strings are passed), so the schema it generates is finished here, and the provider serves the same.
SECRET_OUTPUTS: dict[str, tuple[str, ...]] = {
    "AksCluster": ("kubeconfig",),
    "EksCluster": ("kubeconfig",),
    "GpuPlatform": ("kubeconfig",),
}
# Python objects (pulumi-eks/pulumi-aws resources) only a Python program can pass or read: other languages get the
# string links instead (clusterName, nodeRoleArn), and the package needs no eks/aws SDK for them.
PYTHON_ONLY: dict[str, tuple[str, tuple[str, ...]]] = {
    "EksGpuNodeGroup": ("inputProperties", ("cluster", "nodeRole")),
    "EksCluster": ("properties", ("nodeRole",)),
}


def _literal(model: Any, field: str) -> tuple[str, ...]:
    """The values of a ``Literal[...] | None`` field of a config model."""
    annotation = model.model_fields[field].annotation
    if get_origin(annotation) is not Literal:  # Optional: the Literal beside None
        annotation = next(arg for arg in get_args(annotation) if arg is not type(None))
    return get_args(annotation)


def enum_tables() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Schema property name -> (enum type name, allowed values), from the tables ``check`` uses."""
    from .catalog.clouds import AKS_GPU_INSTANCE_PROFILES, AMI_TYPES, OS_SKUS
    from .catalog.installers import INSTALLERS
    from .config.models import Expander, GpuPoolConfig, GpuSoftware, MigStrategy, Rotation

    priority, eviction = _literal(GpuPoolConfig, "priority"), _literal(GpuPoolConfig, "eviction_policy")
    return {
        "installer": ("Installer", tuple(INSTALLERS)),
        "migStrategy": ("MigStrategy", get_args(MigStrategy)),
        "driver": ("Driver", _literal(GpuSoftware, "driver")),
        "osSku": ("OsSku", tuple(OS_SKUS)),
        "amiType": ("AmiType", tuple(AMI_TYPES)),
        "capacityType": ("CapacityType", _literal(GpuPoolConfig, "capacity_type")),
        "priority": ("Priority", priority),
        "scaleSetPriority": ("Priority", priority),
        "evictionPolicy": ("EvictionPolicy", eviction),
        "scaleSetEvictionPolicy": ("EvictionPolicy", eviction),
        "rotation": ("Rotation", get_args(Rotation)),
        "expander": ("Expander", get_args(Expander)),
        "gpuInstanceProfile": ("GpuInstanceProfile", tuple(AKS_GPU_INSTANCE_PROFILES)),
    }


def finish_schema(spec: dict[str, Any]) -> dict[str, Any]:
    """Secret kubeconfigs, no Python-only properties (nor the eks/aws dependencies they alone bring), enums."""
    resources = spec["resources"]
    for component, names in SECRET_OUTPUTS.items():
        for name in names:
            resources[f"{PACKAGE_NAME}:index:{component}"]["properties"][name]["secret"] = True
    for component, (section, names) in PYTHON_ONLY.items():
        resource = resources[f"{PACKAGE_NAME}:index:{component}"]
        for name in names:
            resource[section].pop(name, None)
            for required in ("requiredInputs", "required"):
                if name in resource.get(required, []):
                    resource[required].remove(name)
    text = json.dumps({key: value for key, value in spec.items() if key != "dependencies"})
    spec["dependencies"] = [dep for dep in spec.get("dependencies", []) if f'"/{dep["name"]}/v' in text]
    tables = enum_tables()
    holders = [(resource, section) for resource in resources.values() for section in ("inputProperties", "properties")]
    holders += [(kind, "properties") for kind in list(spec["types"].values())]
    for holder, section in holders:
        for name, prop in (holder.get(section) or {}).items():
            if name in tables and prop.get("type") == "string":
                type_name, values = tables[name]
                token = f"{PACKAGE_NAME}:index:{type_name}"
                spec["types"][token] = {"type": "string", "enum": [{"value": value} for value in values]}
                prop.pop("type")
                prop["$ref"] = f"#/types/{token}"
    return spec


class GpuPoolsProvider(ComponentProvider):
    """Pulumi's component provider serving the finished schema (``finish_schema``)."""

    schema: str | None

    def __init__(self, components: list[type[pulumi.ComponentResource]], name: str, version: str) -> None:
        super().__init__(components, name, None, version)
        self.schema = json.dumps(finish_schema(strict_loads(self.schema or "{}", max_depth=1000)))
