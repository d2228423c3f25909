"""The components other languages get through ``pulumi package add``, and the offline schema of that package.

Importing this module loads both cloud SDKs (the provider hosts every component); programs in Python
import the cloud subpackage they need instead.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, get_args, get_origin

import pulumi

from ._version import __version__
from .component_args.checking import error_field_names
from .aws.cluster import EksCluster
from .component_args.docstrings import declared_fields, own_doc, schema_name
from .aws.gpu_node_group import EksGpuNodeGroup
from .azure.cluster import AksCluster
from .azure.gpu_pool import AksGpuPool
from .kubernetes.dcgm_exporter import NvidiaDcgmExporter
from .kubernetes.nvidia_releases import NvidiaDevicePlugin, NvidiaDraDriver, NvidiaGpuOperator
from .kubernetes.smoke_test import GpuSmokeTest
from .kubernetes.cluster_autoscaler import ClusterAutoscaler
from .kubernetes.karpenter import Karpenter
from .kubernetes.karpenter_pool import KarpenterPool
from .platform.component import GpuPlatform
from .pulumi_internals import generate_component_schema
from .pulumi_internals.provider_host import ComponentInitError, ComponentProvider, InputPropertyError, PropertyType
from .untrusted.strict_json import strict_loads
from .untrusted.lookup import closest

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
    Karpenter,
    KarpenterPool,
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
    _describe(spec)
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


# A snake_case word that is not part of a dotted Python path (``gpupools.charts.dcgm_exporter`` stays as it is).
SNAKE_WORD = re.compile(r"(?<![\w.])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w]|\.\w)")


def _describe(spec: dict[str, Any]) -> None:
    """Descriptions in the schema's own names: the docstrings are written for Python (``help()`` lists the args
    in snake_case), so each Python name of a property in them becomes the name the schema gives that property.
    A component's description drops the Args and Outputs sections ``documented`` adds for ``help()``; an output
    declared on a base class (the NVIDIA charts') gets the docstring the analyzer only looks for on the class."""
    resources = spec["resources"]
    for component in COMPONENTS:
        resource = resources.get(f"{PACKAGE_NAME}:index:{component.__name__}")
        if resource is None:  # a provider hosting some of the components
            continue
        resource["description"] = own_doc(resource.get("description") or "")
        for field in declared_fields(component):
            prop = resource["properties"].get(schema_name(field.name))
            if prop is not None and field.doc and not prop.get("description"):
                prop["description"] = field.doc
    holders = [*resources.values(), *spec["types"].values()]
    names = {
        name
        for holder in holders
        for section in ("inputProperties", "properties")
        for name in (holder.get(section) or {})
    }
    python = {re.sub(r"[A-Z]", lambda upper: "_" + upper.group().lower(), name): name for name in names}

    def in_schema_names(text: str) -> str:
        return SNAKE_WORD.sub(lambda word: python.get(word.group(), word.group()), text)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "description" and isinstance(value, str):
                    node[key] = in_schema_names(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)


class GpuPoolsProvider(ComponentProvider):
    """Pulumi's component provider serving the finished schema (``finish_schema``)."""

    schema: str | None

    def __init__(self, components: list[type[pulumi.ComponentResource]], name: str, version: str) -> None:
        super().__init__(components, name, None, version)
        self.schema = json.dumps(finish_schema(strict_loads(self.schema or "{}", max_depth=1000)))

    def construct(self, name: str, resource_type: str, inputs: Any, options: Any = None) -> Any:
        """The component, its inputs checked in the schema's terms: an unknown type or key is one clear error with
        a did-you-mean, and errors name the schema's camelCase inputs, not the Python arguments."""
        component = resource_type.rsplit(":", maxsplit=1)[-1]
        if component not in self._components:
            raise ValueError(
                f"{resource_type!r} is not a gpupools component{_did_you_mean(component, self._components)}"
            )
        try:
            with error_field_names(_schema_names):  # errors once outputs resolve, too
                return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as error:
            raise ComponentInitError(ValueError(_schema_names(str(error)))) from None

    def map_input_properties(
        self, inputs: Any, properties: dict[str, Any], mapping: dict[str, str], component_name: str, property_path: str
    ) -> Any:
        """The SDK's mapping, but an unknown key is refused (with did-you-mean) instead of dropped, an integer input
        arrives as an int (the SDK's conversion is overwritten by the float), and a secret or an output is accepted
        wherever a value is: the engine sends a value holding a secret as an output of it (a list or an object
        holding one is made secret whole), and an output is mapped once it resolves, where the SDK would drop an
        object that is an output, hand an output list of objects on unmapped, or call ``int()`` on it."""
        if isinstance(inputs, pulumi.Output):  # an item of a list or map of objects
            return inputs.apply(
                lambda value: self.map_input_properties(value, properties, mapping, component_name, property_path)
            )
        if not isinstance(inputs, dict):
            return super().map_input_properties(inputs, properties, mapping, component_name, property_path)
        for key in inputs:
            if key not in properties:
                where = f"{property_path}.{key}" if property_path else key
                raise InputPropertyError(
                    where, f"unknown input {key!r} on {component_name}{_did_you_mean(key, properties)}"
                )
        later: dict[str, Any] = {}
        for key, value in inputs.items():
            where = f"{property_path}.{key}" if property_path else key
            if isinstance(value, pulumi.Output):
                later[mapping[key]] = value.apply(
                    lambda resolved, key=key: self.map_input_properties(
                        {key: resolved}, {key: properties[key]}, {key: mapping[key]}, component_name, property_path
                    ).get(mapping[key])
                )
            elif properties[key].type == PropertyType.INTEGER and value is not None:
                later[mapping[key]] = _whole(value, where)  # the SDK converts, then overwrites it with the float
        plain = {key: value for key, value in inputs.items() if not isinstance(value, pulumi.Output)}
        kept = {key: prop for key, prop in properties.items() if not isinstance(inputs.get(key), pulumi.Output)}
        mapped = super().map_input_properties(plain, kept, mapping, component_name, property_path)
        return {**mapped, **later}


def _whole(value: Any, where: str) -> Any:
    """An integer input as an int (numbers cross the wire as floats); a fraction or a non-number is refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value  # the component's own check names what it should be
    if isinstance(value, float) and not value.is_integer():
        raise InputPropertyError(where, f"{where} is {value}, not a whole number")
    return int(value)


def _did_you_mean(key: str, known: Any) -> str:
    close = closest(key, known)
    return f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(sorted(known))}"


def _schema_names(message: str) -> str:
    """A component's error with its Python argument paths (``args.node_labels``) in the schema's names."""
    return re.sub(
        r"\bargs((?:\.[a-z0-9_]+|\[\d+\])+)",
        lambda match: re.sub(r"_([a-z0-9])", lambda part: part.group(1).upper(), match.group(1)).lstrip("."),
        message,
    )
