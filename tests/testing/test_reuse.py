"""Reuse from other stacks and languages: the example project under mocks, and the component package schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpupools.testing import RecordingMocks, run_program

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "existing-aks-mig"
PLATFORM_OUTPUTS = {"clusterName": "shared-aks", "resourceGroupName": "platform-rg", "kubeconfig": "apiVersion: v1"}


class PlatformStackMocks(RecordingMocks):
    """Answers the example's StackReference with what this repository's program exports."""

    def new_resource(self, args) -> tuple[str, dict[str, Any]]:
        if args.typ == "pulumi:pulumi:StackReference":
            return f"{args.name}-id", {"name": args.name, "outputs": PLATFORM_OUTPUTS, "secretOutputNames": []}
        return super().new_resource(args)


def run_example(**config: str):
    settings = {
        "gpu-team-pool:clusterStack": "platform/gpupools/existing",
        "gpu-team-pool:poolName": "team3g",
        "gpu-team-pool:vmSize": "Standard_ND96asr_v4",
        "gpu-team-pool:migProfile": "MIG3g",
        "gpu-team-pool:nodes": "2",
        **config,
    }
    mocks = PlatformStackMocks()
    return run_program(EXAMPLE, project="gpu-team-pool", stack="team", config=settings, mocks=mocks), mocks


def test_example_adds_a_mig_pool_to_the_referenced_cluster() -> None:
    run, _ = run_example()
    pools = [r for r in run.resources if r.type == "azure-native:containerservice:AgentPool"]
    assert len(pools) == 1
    inputs = pools[0].inputs
    assert inputs["resourceName"] == "shared-aks"  # from the StackReference, not from local config
    assert inputs["resourceGroupName"] == "platform-rg"
    assert inputs["gpuInstanceProfile"] == "MIG3g"
    assert inputs["nodeTaints"] == ["nvidia.com/gpu=present:NoSchedule"]
    # 3g.20gb: two per A100 40GB, eight GPUs per ND96asr_v4, two nodes.
    assert run.outputs["slices"] == {"nvidia.com/gpu": 2 * 8 * 2}
    assert run.outputs["nodeSelector"] == {"gpupools.io/pool": "team3g"}
    # An existing cluster: GpuPlatform looks it up, it creates neither cluster nor resource group.
    assert not [
        r
        for r in run.resources
        if r.type in ("azure-native:containerservice:ManagedCluster", "azure-native:resources:ResourceGroup")
    ]


def test_example_never_sends_the_validation_placeholders() -> None:
    from gpupools.platform.inputs import DEFERRABLE

    run, _ = run_example()
    sent = json.dumps([r.inputs for r in run.resources]) + json.dumps([c.args for c in run.calls], default=str)
    assert "shared-aks" in sent
    for placeholder in DEFERRABLE.values():
        if isinstance(placeholder, str):
            assert placeholder.format(0) not in sent


def test_example_installs_the_pinned_device_plugin_through_the_referenced_cluster() -> None:
    run, _ = run_example()
    release = next(r for r in run.resources if r.type == "kubernetes:helm.sh/v3:Release")
    assert release.inputs["chart"] == "nvidia-device-plugin"
    assert release.inputs["version"] == "0.20.0"
    assert release.inputs["values"]["migStrategy"] == "single"
    provider = next(r for r in run.resources if r.type == "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] in ("[secret]", "[unknown]")  # the referenced cluster's credentials


def test_example_rejects_a_profile_the_vm_lacks_before_creating_anything() -> None:
    from gpupools.component_args import ComponentArgsError

    mocks = PlatformStackMocks()
    settings = {
        "gpu-team-pool:clusterStack": "platform/gpupools/existing",
        "gpu-team-pool:poolName": "team3g",
        "gpu-team-pool:vmSize": "Standard_ND96asr_v4",
        "gpu-team-pool:migProfile": "MIG5g",
        "gpu-team-pool:nodes": "2",
    }
    with pytest.raises(ComponentArgsError, match=r"GpuPlatform\('team'\) args\.gpu_pools\[0\]\.mig\.profile: 'MIG5g'"):
        run_program(EXAMPLE, project="gpu-team-pool", stack="team", config=settings, mocks=mocks)
    assert not [r.type for r in mocks.resources if r.type != "pulumi:pulumi:StackReference"]


def test_example_requirements_install_the_library_like_a_user() -> None:
    lines = [line.strip() for line in (EXAMPLE / "requirements.txt").read_text().splitlines()]
    # Like a user outside this repository: the library (with its Azure extra) from git, not a relative path.
    assert any(line.startswith("gpupools[azure] @ git+https://") for line in lines)


# --- component package for other languages ---------------------------------------------------------------


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    from gpupools.provider import package_schema

    return package_schema()


EXPECTED_COMPONENTS = {
    "AksCluster": (
        {
            "name": "string",
            "resourceGroupName": "string",
            "location": "string",
            "create": "boolean",
            "systemPoolCount": "integer",
            "systemPoolMaxPods": "integer",
            "podCidr": "string",
        },
        {"clusterName": "string", "kubeconfig": "string"},
    ),
    "AksGpuPool": (
        {
            "clusterName": "string",
            "vmSize": "string",
            "count": "integer",
            "nodeLabels": "object",
            "nodeTaints": "array",
            "maxPods": "integer",
            "availabilityZones": "array",
            "capacityReservationGroupId": "string",
            "spotMaxPrice": "number",
        },
        {"poolName": "string", "vmSize": "string"},
    ),
    "EksCluster": (
        {"name": "string", "systemNodeCount": "integer", "subnetIds": "array", "vpcId": "string"},
        {"clusterName": "string", "kubeconfig": "string"},
    ),
    "EksGpuNodeGroup": (
        {
            "nodeGroupName": "string",
            "instanceType": "string",
            "desiredSize": "integer",
            "taints": "array",
            "capacityReservation": "string",
            "efa": "boolean",
            "efaInterfaces": "integer",
        },
        {"nodeGroupName": "string"},
    ),
    "NvidiaDevicePlugin": (
        {"version": "string", "namespace": "string", "values": "object", "createNamespace": "boolean"},
        {"releaseName": "string", "chartVersion": "string", "namespace": "string"},
    ),
    "NvidiaGpuOperator": ({"version": "string", "namespace": "string", "values": "object"}, {"chartVersion": "string"}),
    "NvidiaDraDriver": (
        {"version": "string", "namespace": "string", "values": "object", "createNamespace": "boolean"},
        {"releaseName": "string", "chartVersion": "string", "namespace": "string"},
    ),
    "GpuSmokeTest": ({"poolName": "string", "resources": "array", "nodeSelector": "object"}, {"jobName": "string"}),
    "GpuPlatform": (
        {"cloud": "string", "gpuPools": "array", "customSizes": "object", "tags": "object"},
        {
            "clusterName": "string",
            "kubeconfig": "string",
            "gpuToleration": "object",
            "resourcesPerNode": "object",
            "resourcesTotal": "object",
            "nodeSelectors": "object",
            "draClasses": "object",
        },
    ),
}


@pytest.mark.parametrize("component", sorted(EXPECTED_COMPONENTS))
def test_schema_has_every_component_with_typed_inputs_and_outputs(schema: dict[str, Any], component: str) -> None:
    resource = schema["resources"][f"gpupools:index:{component}"]
    assert resource["isComponent"] is True
    inputs, outputs = EXPECTED_COMPONENTS[component]
    for name, kind in inputs.items():
        assert resource["inputProperties"][name]["type"] == kind, name
        assert resource["inputProperties"][name].get("description"), f"{name} is undocumented"
    for name, kind in outputs.items():
        assert resource["properties"][name]["type"] == kind, name


def test_schema_marks_required_inputs(schema: dict[str, Any]) -> None:
    pool = schema["resources"]["gpupools:index:AksGpuPool"]
    assert {"clusterName", "resourceGroupName", "poolName", "vmSize", "count"} <= set(pool["requiredInputs"])
    assert "gpuInstanceProfile" not in pool["requiredInputs"]


def test_schema_leaves_out_python_only_objects_and_their_packages(schema: dict[str, Any]) -> None:
    """cluster/node_role (pulumi-eks/pulumi-aws objects) are Python-only: no reference, no eks/aws dependency."""
    group = schema["resources"]["gpupools:index:EksGpuNodeGroup"]
    assert not {"cluster", "nodeRole"} & set(group["inputProperties"])
    assert not {"cluster", "nodeRole"} & set(group.get("requiredInputs", []))
    assert "nodeRole" not in schema["resources"]["gpupools:index:EksCluster"]["properties"]
    assert {"clusterName", "nodeRoleArn"} <= set(group["inputProperties"])  # the links other languages pass
    text = json.dumps(schema)
    assert "/eks/v" not in text and "/aws/v" not in text
    assert not {"eks", "aws"} & {dep["name"] for dep in schema["dependencies"]}


def _types_reached(schema: dict[str, Any], token: str) -> dict[str, dict[str, Any]]:
    """Every package type GpuPlatform's inputs reach, by name, from the resource's own inputs."""
    found: dict[str, dict[str, Any]] = {}
    pending = [schema["resources"][token]["inputProperties"]]
    while pending:
        for prop in pending.pop().values():
            for node in (prop, prop.get("items") or {}, prop.get("additionalProperties") or {}):
                ref = node.get("$ref", "")
                name = ref.rpartition(":")[2]
                if ref.startswith("#/types/") and name not in found:
                    found[name] = schema["types"][ref.removeprefix("#/types/")]
                    pending.append(found[name].get("properties", {}))  # enums have none
    return found


def test_platform_schema_is_typed_through_pools_mig_and_sharing(schema: dict[str, Any]) -> None:
    types = _types_reached(schema, "gpupools:index:GpuPlatform")
    assert {
        "ClusterArgs",
        "GpuPoolArgs",
        "MigArgs",
        "SharingArgs",
        "TimeSlicingArgs",
        "MpsArgs",
        "GpuSoftwareArgs",
        "PoolAutoscalingArgs",
        "CustomSizeArgs",
        "SystemPoolArgs",
    } <= set(types)
    platform = schema["resources"]["gpupools:index:GpuPlatform"]
    assert "pulumi.json#/Any" not in json.dumps([platform["inputProperties"], types])
    assert types["MigArgs"]["properties"]["layoutMix"]["additionalProperties"]["type"] == "integer"
    assert types["SharingArgs"]["properties"]["timeSlicing"]["$ref"].endswith(":TimeSlicingArgs")
    assert types["MpsArgs"]["properties"]["allowPrivilegedHostPid"]["type"] == "boolean"
    assert set(platform["requiredInputs"]) == {"cloud", "cluster", "gpuPools", "gpuSoftware"}
    assert {"name", "size"} <= set(types["GpuPoolArgs"]["required"])


def test_platform_schema_takes_outputs_for_names_ids_and_counts_only(schema: dict[str, Any]) -> None:
    types = _types_reached(schema, "gpupools:index:GpuPlatform")
    may_be_outputs = {
        "ClusterArgs": {"name", "resourceGroup", "subnetIds", "vpcId", "nodeRoleArn"},
        "GpuPoolArgs": {"count", "capacityReservationGroupId", "capacityReservation", "subnetIds"},
    }
    for type_name, names in may_be_outputs.items():
        properties = types[type_name]["properties"]
        assert {name for name, prop in properties.items() if not prop.get("plain")} == names, type_name
    # Everything that decides sizes, layouts and labels is plain (known while planning).
    assert all(prop.get("plain") for prop in types["MigArgs"]["properties"].values())
    platform = schema["resources"]["gpupools:index:GpuPlatform"]["inputProperties"]
    assert platform["cloud"]["plain"] and platform["gpuPools"]["plain"]


def test_platform_schema_exposes_capacity_per_pool(schema: dict[str, Any]) -> None:
    outputs = schema["resources"]["gpupools:index:GpuPlatform"]["properties"]
    for name in ("resourcesPerNode", "resourcesTotal"):  # pool -> resource -> count
        assert outputs[name]["additionalProperties"]["additionalProperties"]["type"] == "integer"
    assert outputs["nodeSelectors"]["additionalProperties"]["additionalProperties"]["type"] == "string"
    assert outputs["gpuToleration"]["additionalProperties"]["type"] == "string"


def test_plugin_manifest_and_host_name_the_package() -> None:
    import yaml

    manifest = yaml.safe_load((REPO / "provider" / "PulumiPlugin.yaml").read_text())
    runtime = manifest["runtime"]
    assert (runtime if isinstance(runtime, str) else runtime["name"]) == "python"
    host = (REPO / "provider" / "__main__.py").read_text()
    assert "GpuPoolsProvider(COMPONENTS" in host and "PACKAGE_NAME" in host
