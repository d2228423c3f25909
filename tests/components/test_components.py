"""Each component under the recording mocks: the inputs and resource options every resource it registers received.

Inputs arrive in wire form (camelCase, numbers as floats, references as URNs or ids). Expected values are
the clouds' and NVIDIA's published names, not values computed by the code under test.
"""

import json

import pulumi
import pytest

from gpupools.testing import MOCK_KUBECONFIG, SECRET, dump_resources
from support.resources import named as _named, one as _one, run_mocked as _run

GPU_TAINT = "nvidia.com/gpu=present:NoSchedule"
TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
# The managed policies EKS documents for node roles (worker, CNI, ECR pulls) and SSM for node access.
EKS_NODE_POLICIES = {
    "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
    "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
    "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
}


def _assert_tree(run, component_type, outside=()):
    """The component's token is gpupools:*, and everything else (but the test's own ``outside``) sits under it."""
    by_urn = {resource.urn: resource for resource in run.resources}
    (component,) = [r for r in run.resources if r.type == component_type and r.parent is None]
    assert component_type.startswith("gpupools:index:") and not component.custom
    for resource in run.resources:
        if resource is component or resource.name in outside:
            continue
        chain = resource
        while chain.parent in by_urn and chain.parent != component.urn:
            chain = by_urn[chain.parent]
        assert chain.parent == component.urn, f"{resource.name} is not under {component.name}"
    return component


# --- AKS ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def aks_pools():
    from gpupools.azure import AksGpuPool

    def program():
        common = {
            "cluster_name": "gpu-dev",
            "resource_group_name": "gpu-dev-rg",
            "count": 2,
            "node_labels": {"gpupools.io/pool": "mig1g"},
            "node_taints": [GPU_TAINT],
        }
        AksGpuPool(
            "mig1g", {**common, "pool_name": "mig1g", "vm_size": "Standard_ND96asr_v4", "gpu_instance_profile": "MIG1g"}
        )
        AksGpuPool(
            "whole",
            {
                **common,
                "pool_name": "whole",
                "vm_size": "Standard_NC24ads_A100_v4",
                "gpu_driver": "None",
                "min_count": 0,
                "max_count": 3,
            },
        )

    return _run(program)


def test_aks_mig_pool_inputs(aks_pools):
    inputs = _named(aks_pools, "mig1g-pool").inputs
    assert (inputs["agentPoolName"], inputs["resourceName"], inputs["resourceGroupName"]) == (
        "mig1g",
        "gpu-dev",
        "gpu-dev-rg",
    )
    assert inputs["vmSize"] == "Standard_ND96asr_v4" and inputs["count"] == 2
    assert inputs["gpuInstanceProfile"] == "MIG1g"
    assert inputs["mode"] == "User" and inputs["osType"] == "Linux"
    assert inputs["osSKU"] == "Ubuntu"  # the SDK's irregular camelCase
    assert inputs["enableAutoScaling"] is False and "minCount" not in inputs and "maxCount" not in inputs
    assert inputs["nodeTaints"] == [GPU_TAINT]
    assert inputs["nodeLabels"] == {"gpupools.io/pool": "mig1g"}
    assert "gpuProfile" not in inputs  # driver left to AKS's default (Install)


def test_aks_pool_profile_change_is_a_replacement(aks_pools):
    for name in ("mig1g-pool", "whole-pool"):
        options = _named(aks_pools, name).options
        # AKS fixes the MIG profile at creation: a change must delete and recreate the pool, in that order.
        assert "gpuInstanceProfile" in options["replaceOnChanges"]
        assert "vmSize" in options["replaceOnChanges"]
        # AKS migrates the OS SKU in place (`az aks nodepool update --os-sku`): no replacement for it.
        assert "osSKU" not in options["replaceOnChanges"]
        assert options["deleteBeforeReplace"] is True
        assert "protect" not in options
    # Only the autoscaled pool leaves its count to AKS's autoscaler.
    assert "ignoreChanges" not in _named(aks_pools, "mig1g-pool").options
    assert _named(aks_pools, "whole-pool").options["ignoreChanges"] == ["count"]


def test_aks_operator_driver_and_autoscaled_pool(aks_pools):
    inputs = _named(aks_pools, "whole-pool").inputs
    assert inputs["gpuProfile"] == {"driver": "None"}
    assert "gpuInstanceProfile" not in inputs
    assert inputs["enableAutoScaling"] is True and inputs["minCount"] == 0 and inputs["maxCount"] == 3


def test_aks_pool_tree_and_dump(aks_pools):
    components = [r for r in aks_pools.resources if r.type == "gpupools:index:AksGpuPool"]
    assert sorted(c.name for c in components) == ["mig1g", "whole"]
    for component in components:
        assert _named(aks_pools, f"{component.name}-pool").parent == component.urn
    dump = {item["name"]: item for item in dump_resources(aks_pools)}
    assert "options" not in dump["mig1g"]  # only present when a resource set options
    assert dump["mig1g-pool"]["options"]["deleteBeforeReplace"] is True
    assert dump["mig1g-pool"]["inputs"]["count"] == 2 and isinstance(dump["mig1g-pool"]["inputs"]["count"], int)
    json.dumps(list(dump.values()))


def test_aks_cluster_created():
    from gpupools.azure import AksCluster

    def program():
        cluster = AksCluster(
            "gpu-dev",
            {
                "name": "gpu-dev",
                "resource_group_name": "gpu-dev-rg",
                "location": "southcentralus",
                "kubernetes_version": "1.35",
            },
        )
        pulumi.export("kubeconfig", cluster.kubeconfig)
        pulumi.export("clusterName", cluster.cluster_name)

    run = _run(program)
    component = _assert_tree(run, "gpupools:index:AksCluster")
    group = _one(run, "azure-native:resources:ResourceGroup")
    assert group.inputs["resourceGroupName"] == "gpu-dev-rg" and group.inputs["location"] == "southcentralus"
    managed = _one(run, "azure-native:containerservice:ManagedCluster")
    assert managed.parent == group.parent == component.urn
    assert managed.inputs["resourceName"] == "gpu-dev" and managed.inputs["resourceGroupName"] == "gpu-dev-rg"
    assert managed.inputs["identity"] == {"type": "SystemAssigned"} and managed.inputs["kubernetesVersion"] == "1.35"
    (system,) = managed.inputs["agentPoolProfiles"]
    assert system["mode"] == "System" and system["osType"] == "Linux" and system["count"] >= 1
    # GPU pools are separate AgentPools; without this the cluster's next update would drop them.
    assert managed.options["ignoreChanges"] == ["agentPoolProfiles"]
    provider = _one(run, "pulumi:providers:kubernetes")
    assert provider.parent == component.urn and provider.inputs["kubeconfig"] == SECRET
    assert run.outputs == {"kubeconfig": SECRET, "clusterName": "gpu-dev"}
    assert "mock-token" not in json.dumps([run.outputs, dump_resources(run)])
    (call,) = run.calls
    assert call.token == "azure-native:containerservice:listManagedClusterUserCredentials"
    assert call.args == {"resourceGroupName": "gpu-dev-rg", "resourceName": "gpu-dev"}


def test_aks_cluster_existing_is_only_read():
    from gpupools.azure import AksCluster

    def program():
        cluster = AksCluster("shared", {"name": "shared-aks", "resource_group_name": "platform-rg", "create": False})
        pulumi.export("kubeconfig", cluster.kubeconfig)
        pulumi.export("clusterName", cluster.cluster_name)
        pulumi.export("plain", cluster.kubeconfig.apply(lambda text: "ok" if text == MOCK_KUBECONFIG else text))

    run = _run(program)
    _assert_tree(run, "gpupools:index:AksCluster")
    assert not [r for r in run.resources if r.type.startswith("azure-native:")]
    assert [r.type for r in run.resources if r.custom] == ["pulumi:providers:kubernetes"]
    (call,) = run.calls
    assert call.token == "azure-native:containerservice:listManagedClusterUserCredentials"
    assert call.args == {"resourceGroupName": "platform-rg", "resourceName": "shared-aks"}
    # The decoded kubeconfig reaches the provider, but only ever as a secret.
    assert run.outputs == {"kubeconfig": SECRET, "clusterName": "shared-aks", "plain": SECRET}


# --- EKS ---------------------------------------------------------------------------------------------


def test_eks_cluster_existing_is_only_read_and_authenticates_through_the_aws_cli():
    import json

    from gpupools.aws import EksCluster

    def program():
        cluster = EksCluster("shared", {"name": "shared-eks", "create": False})
        pulumi.export("clusterName", cluster.cluster_name)
        pulumi.export("config", cluster.kubeconfig.apply(json.loads))
        built = pulumi.Output.unsecret(cluster.kubeconfig).apply(json.loads)
        pulumi.export("cluster", built.apply(lambda config: config["clusters"][0]["cluster"]))

    run = _run(program)
    assert not [r for r in run.resources if r.type.startswith(("eks:", "aws:"))]
    (call,) = run.calls
    assert call.token == "aws:eks/getCluster:getCluster" and call.args["name"] == "shared-eks"
    assert run.outputs["clusterName"] == "shared-eks" and run.outputs["config"] == SECRET
    # Endpoint and CA come from the looked-up cluster (the mock answers like EKS's DescribeCluster).
    assert run.outputs["cluster"] == {
        "server": "https://shared-eks.gr7.us-east-1.eks.amazonaws.com",
        "certificate-authority-data": "bW9jay1jYQ==",
    }
    (provider,) = [r for r in run.resources if r.type == "pulumi:providers:kubernetes"]
    assert provider.inputs["kubeconfig"] == SECRET


def test_existing_eks_kubeconfig_holds_no_credential():
    import json

    from gpupools.aws.cluster import _exec_kubeconfig

    config = json.loads(_exec_kubeconfig("shared-eks", "https://example.invalid", "Q0E="))
    (cluster,) = config["clusters"]
    assert cluster["cluster"] == {"server": "https://example.invalid", "certificate-authority-data": "Q0E="}
    (user,) = config["users"]
    assert user["user"]["exec"]["command"] == "aws"
    assert user["user"]["exec"]["args"] == ["eks", "get-token", "--cluster-name", "shared-eks", "--output", "json"]
    assert "token" not in user["user"]


@pytest.fixture(scope="module")
def eks_run():
    from gpupools.aws import EksCluster, EksGpuNodeGroup

    def program():
        cluster = EksCluster("gpu-eks", {"name": "gpu-eks", "kubernetes_version": "1.33"})
        taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
        EksGpuNodeGroup(
            "a100",
            {
                "cluster": cluster.cluster,
                "node_group_name": "a100",
                "instance_type": "p4d.24xlarge",
                "desired_size": 2,
                "min_size": 0,
                "max_size": 4,
                "labels": {"nvidia.com/mig.config": "all-balanced"},
                "taints": [taint],
            },
        )
        EksGpuNodeGroup(
            "idle",
            {
                "cluster": cluster.cluster,
                "node_group_name": "idle",
                "instance_type": "g5.xlarge",
                "desired_size": 0,
                "disk_size_gb": 100,
            },
        )
        pulumi.export("kubeconfig", cluster.kubeconfig)

    return _run(program, stack="eks")


def test_eks_cluster_inputs(eks_run):
    cluster = _one(eks_run, "eks:index:Cluster")
    component = _named(eks_run, "gpu-eks")
    assert component.type == "gpupools:index:EksCluster" and cluster.parent == component.urn
    inputs = cluster.inputs
    assert inputs["name"] == "gpu-eks" and inputs["version"] == "1.33"
    assert inputs["skipDefaultNodeGroup"] is True
    assert inputs["createOidcProvider"] is True
    assert inputs["authenticationMode"] == "API"
    role = _named(eks_run, "gpu-eks-nodes-role")
    assert role.parent == component.urn and inputs["instanceRoles"] == [role.name]  # a role's id is its name
    system = _named(eks_run, "gpu-eks-system")
    assert system.type == "eks:index:ManagedNodeGroup" and system.parent == component.urn
    assert system.inputs["cluster"] == cluster.urn
    assert system.inputs["instanceTypes"] == ["m6i.large"]
    assert system.inputs["scalingConfig"] == {"desiredSize": 2, "minSize": 2, "maxSize": 2}
    assert "taints" not in system.inputs or system.inputs["taints"] == []
    assert _named(eks_run, "gpu-eks-k8s").inputs["kubeconfig"] == SECRET
    assert eks_run.outputs == {"kubeconfig": SECRET}
    roots = {r.name: r.type for r in eks_run.resources if r.parent is None}
    assert roots == {
        "gpu-eks": "gpupools:index:EksCluster",
        "a100": "gpupools:index:EksGpuNodeGroup",
        "idle": "gpupools:index:EksGpuNodeGroup",
    }
    by_urn = {r.urn: r for r in eks_run.resources}
    for resource in eks_run.resources:  # every resource descends from one of the three components
        while resource.parent is not None:
            resource = by_urn[resource.parent]
        assert resource.name in roots


def test_eks_gpu_node_group_inputs(eks_run):
    component = _named(eks_run, "a100")
    assert component.type == "gpupools:index:EksGpuNodeGroup"
    group = _named(eks_run, "a100-ng")
    assert group.parent == component.urn
    inputs = group.inputs
    assert inputs["cluster"] == _one(eks_run, "eks:index:Cluster").urn
    assert inputs["nodeGroupName"] == "a100"
    assert inputs["amiType"] == "AL2023_x86_64_NVIDIA"  # the default: NVIDIA driver and toolkit in the AMI
    assert inputs["instanceTypes"] == ["p4d.24xlarge"]
    assert inputs["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert inputs["scalingConfig"] == {"desiredSize": 2, "minSize": 0, "maxSize": 4}  # an explicit 0 stays 0
    assert inputs["labels"] == {"nvidia.com/mig.config": "all-balanced"}
    role = _named(eks_run, "a100-nodes-role")
    assert role.parent == component.urn and inputs["nodeRole"] == role.name  # a role's id is its name
    assert "nodeRoleArn" not in inputs  # exclusive with nodeRole


def test_eks_scaled_to_zero_without_launch_template(eks_run):
    inputs = _named(eks_run, "idle-ng").inputs
    assert inputs["amiType"] == "AL2023_x86_64_NVIDIA"
    # No reservation, Capacity Block or EFA: EKS's own launch template, and the disk on the node group.
    assert inputs["diskSize"] == 100 and "launchTemplate" not in inputs and "capacityType" not in inputs
    assert not [r for r in eks_run.resources if r.type == "aws:ec2/launchTemplate:LaunchTemplate"]
    # EKS requires maxSize >= 1 even for an empty node group.
    assert inputs["scalingConfig"] == {"desiredSize": 0, "minSize": 0, "maxSize": 1}
    assert inputs["instanceTypes"] == ["g5.xlarge"] and inputs["labels"] == {}
    assert inputs["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]  # by default


@pytest.mark.parametrize("owner", ["gpu-eks", "a100", "idle"])
def test_eks_node_roles_get_the_four_managed_policies(eks_run, owner):
    role = _named(eks_run, f"{owner}-nodes-role")
    assert json.loads(role.inputs["assumeRolePolicy"])["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com"}
    attachments = [
        r
        for r in eks_run.resources
        if r.type == "aws:iam/rolePolicyAttachment:RolePolicyAttachment" and r.parent == role.urn
    ]
    assert {a.inputs["policyArn"] for a in attachments} == EKS_NODE_POLICIES and len(attachments) == 4
    assert {a.inputs["role"] for a in attachments} == {role.name}
    assert all(role.urn in a.options["dependencies"] for a in attachments)


# --- NVIDIA charts and the smoke test ---------------------------------------------------------------


@pytest.mark.parametrize(
    "component, chart, version, repo",
    [
        ("NvidiaDevicePlugin", "nvidia-device-plugin", "0.20.0", "https://nvidia.github.io/k8s-device-plugin"),
        ("NvidiaGpuOperator", "gpu-operator", "v26.7.0", "https://helm.ngc.nvidia.com/nvidia"),
    ],
)
def test_nvidia_chart(component, chart, version, repo):
    import pulumi_kubernetes as k8s

    from gpupools import kubernetes as components

    values = {"migStrategy": "mixed", "gfd": {"enabled": True}, "tolerations": [TOLERATION], "replicas": 2}

    def program():
        provider = k8s.Provider("k8s", kubeconfig="{}")
        getattr(components, component)(
            "nvidia",
            {"version": version, "namespace": "gpu-system", "values": values},
            pulumi.ResourceOptions(providers=[provider]),
        )

    run = _run(program)
    root = _assert_tree(run, f"gpupools:index:{component}", outside={"k8s"})
    namespace = _one(run, "kubernetes:core/v1:Namespace")
    assert namespace.parent == root.urn and namespace.inputs["metadata"]["name"] == "gpu-system"
    release = _one(run, "kubernetes:helm.sh/v3:Release")
    assert release.parent == root.urn
    assert {key: release.inputs.get(key) for key in ("chart", "version", "repositoryOpts", "namespace", "atomic")} == {
        "chart": chart,
        "version": version,
        "repositoryOpts": {"repo": repo},
        "namespace": "gpu-system",
        "atomic": True,
    }
    assert release.inputs["values"] == values
    # The component's provider reaches both children: nothing goes to the ambient kubeconfig.
    provider = _named(run, "k8s")
    for child in (namespace, release):
        assert child.options["provider"].startswith(provider.urn + "::")
    assert namespace.urn in release.options["dependencies"]


def test_gpu_smoke_test_job():
    from gpupools.kubernetes import GpuSmokeTest

    resources = ["nvidia.com/mig-1g.5gb", "nvidia.com/mig-2g.10gb"]

    def program():
        GpuSmokeTest(
            "p4d-smoke",
            {
                "pool_name": "p4d",
                "namespace": "gpu-operator",
                "resources": resources,
                "node_selector": {"gpupools.io/pool": "p4d"},
                "toleration_key": "nvidia.com/gpu",
            },
        )

    run = _run(program)
    root = _assert_tree(run, "gpupools:index:GpuSmokeTest")
    job = _one(run, "kubernetes:batch/v1:Job")
    assert job.parent == root.urn
    assert job.inputs["metadata"]["namespace"] == "gpu-operator"
    pod = job.inputs["spec"]["template"]["spec"]
    assert pod["restartPolicy"] in ("Never", "OnFailure")  # what a Job accepts
    assert pod["nodeSelector"] == {"gpupools.io/pool": "p4d"} and pod["tolerations"] == [TOLERATION]
    containers = pod["containers"]
    assert [c["resources"]["limits"] for c in containers] == [{resource: "1"} for resource in resources]
    assert len({c["name"] for c in containers}) == len(resources)
    for container in containers:
        assert container["command"] == ["nvidia-smi", "-L"]
        image = container["image"]
        repository, _, tag = image.rpartition(":")
        assert "/" not in tag and tag and tag != "latest" and repository, image
        assert all(ch.isalnum() or ch == "-" for ch in container["name"]) and len(container["name"]) <= 63
