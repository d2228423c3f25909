"""Reuse from other stacks and languages: the example project under mocks, and the component package schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpupools.testing import RecordingMocks, run_program

REPO = Path(__file__).resolve().parents[1]
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
        "gpu-team-pool:clusterStack": "platform/gpupools/existing", "gpu-team-pool:poolName": "team3g",
        "gpu-team-pool:vmSize": "Standard_ND96asr_v4", "gpu-team-pool:migProfile": "MIG3g",
        "gpu-team-pool:nodes": "2", **config,
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


def test_example_installs_the_pinned_device_plugin_through_the_referenced_kubeconfig() -> None:
    run, _ = run_example()
    release = next(r for r in run.resources if r.type == "kubernetes:helm.sh/v3:Release")
    assert release.inputs["chart"] == "nvidia-device-plugin"
    assert release.inputs["version"] == "0.20.0"
    assert release.inputs["values"]["migStrategy"] == "single"
    provider = next(r for r in run.resources if r.type == "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] in ("[secret]", PLATFORM_OUTPUTS["kubeconfig"])


def test_example_rejects_a_profile_the_vm_lacks_before_creating_anything() -> None:
    from gpupools.config import ConfigError

    with pytest.raises(ConfigError, match="migProfile|mig.profile"):
        run_example(**{"gpu-team-pool:migProfile": "MIG5g"})


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
    "AksCluster": ({"name": "string", "resourceGroupName": "string", "location": "string", "create": "boolean",
                    "systemPoolCount": "integer", "systemPoolMaxPods": "integer", "podCidr": "string"},
                   {"clusterName": "string", "kubeconfig": "string"}),
    "AksGpuPool": ({"clusterName": "string", "vmSize": "string", "count": "integer", "gpuInstanceProfile": "string",
                    "nodeLabels": "object", "nodeTaints": "array", "maxPods": "integer", "availabilityZones": "array",
                    "capacityReservationGroupId": "string", "scaleSetPriority": "string",
                    "scaleSetEvictionPolicy": "string", "spotMaxPrice": "number"},
                   {"poolName": "string", "vmSize": "string"}),
    "EksCluster": ({"name": "string", "systemNodeCount": "integer", "subnetIds": "array", "vpcId": "string"},
                   {"clusterName": "string", "kubeconfig": "string"}),
    "EksGpuNodeGroup": ({"nodeGroupName": "string", "instanceType": "string", "desiredSize": "integer",
                         "taints": "array", "capacityType": "string", "capacityReservation": "string",
                         "efa": "boolean", "efaInterfaces": "integer"}, {"nodeGroupName": "string"}),
    "NvidiaDevicePlugin": ({"version": "string", "namespace": "string", "values": "object",
                            "createNamespace": "boolean"},
                           {"releaseName": "string", "chartVersion": "string", "namespace": "string"}),
    "NvidiaGpuOperator": ({"version": "string", "namespace": "string", "values": "object"},
                          {"chartVersion": "string"}),
    "GpuSmokeTest": ({"poolName": "string", "resources": "array", "nodeSelector": "object"}, {"jobName": "string"}),
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


def test_schema_references_the_eks_cluster_type(schema: dict[str, Any]) -> None:
    cluster = schema["resources"]["gpupools:index:EksGpuNodeGroup"]["inputProperties"]["cluster"]
    assert cluster["$ref"].endswith("/eks/v4.4.0/schema.json#/resources/eks:index:Cluster")


def test_plugin_manifest_and_host_name_the_package() -> None:
    import yaml

    manifest = yaml.safe_load((REPO / "provider" / "PulumiPlugin.yaml").read_text())
    runtime = manifest["runtime"]
    assert (runtime if isinstance(runtime, str) else runtime["name"]) == "python"
    host = (REPO / "provider" / "__main__.py").read_text()
    assert "component_provider_host" in host and "COMPONENTS" in host
