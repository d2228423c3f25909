"""The offline runner: real SDK resources under RecordingMocks, recorded with parents, inputs, secrets and calls."""

import base64
import gc
import json
import logging
import sys
import textwrap

import pulumi
import pytest
from pulumi.runtime import settings as runtime_settings

from gpupools.testing import MOCK_KUBECONFIG, SECRET, dump_resources, run_program


def _by_name(run):
    return {resource.name: resource for resource in run.resources}


class _Software(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        import pulumi_kubernetes as k8s

        super().__init__("gpupools:test:Software", name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        namespace = k8s.core.v1.Namespace(f"{name}-ns", metadata={"name": "gpu-operator"}, opts=child)
        k8s.helm.v3.Release(
            f"{name}-release",
            chart="nvidia-device-plugin",
            version="0.17.1",
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo="https://nvidia.github.io/k8s-device-plugin"),
            namespace=namespace.metadata.name,
            values={"migStrategy": "single", "replicas": 2},
            opts=child,
        )
        self.register_outputs({})


def test_children_are_recorded_under_their_component_with_their_inputs():
    def program() -> None:
        _Software("sw")
        pulumi.log.warn("preview only")
        pulumi.log.error("quota check skipped")

    run = run_program(program, project="proj", stack="dev", config={})

    resources = _by_name(run)
    assert resources["sw"].type == "gpupools:test:Software" and not resources["sw"].custom
    assert resources["sw-ns"].parent == resources["sw"].urn == "urn:pulumi:dev::proj::gpupools:test:Software::sw"
    release = resources["sw-release"]
    assert release.parent == resources["sw"].urn
    assert release.inputs["chart"] == "nvidia-device-plugin"
    assert release.inputs["version"] == "0.17.1"
    assert release.inputs["namespace"] == "gpu-operator"  # the namespace's output, resolved
    assert release.inputs["values"] == {"migStrategy": "single", "replicas": 2.0}  # numbers arrive as floats
    assert run.warnings == ["preview only"] and run.errors == ["quota check skipped"]

    dump = dump_resources(run)
    assert [(item["name"], item["parent"]) for item in dump] == [
        ("sw", None),
        ("sw-ns", "sw"),
        ("sw-release", "sw"),
    ]
    assert dump[2]["inputs"]["values"]["replicas"] == 2 and isinstance(dump[2]["inputs"]["values"]["replicas"], int)
    json.dumps(dump)


def test_secrets_never_come_back_in_clear():
    def program() -> None:
        import pulumi_kubernetes as k8s

        password = pulumi.Output.secret("hunter2")
        k8s.core.v1.ConfigMap("creds", data={"password": password, "user": "admin"})
        pulumi.export("password", password)
        pulumi.export("nested", {"user": "admin", "password": password})
        pulumi.export("derived", password.apply(lambda value: value.upper()))
        pulumi.export("configured", pulumi.Config("proj").require_secret("token"))

    run = run_program(program, project="proj", stack="dev", config={"proj:token": "s3cr3t"}, secret_keys=["proj:token"])

    everything = json.dumps([run.outputs, dump_resources(run), [call.args for call in run.calls]])
    assert "hunter2" not in everything and "HUNTER2" not in everything and "s3cr3t" not in everything
    assert run.outputs == {
        "password": SECRET,
        "nested": {"user": "admin", "password": SECRET},
        "derived": SECRET,
        "configured": SECRET,
    }
    # Only the secret leaf is masked; its non-secret sibling stays readable.
    assert _by_name(run)["creds"].inputs["data"] == {"password": SECRET, "user": "admin"}


def test_eks_program_runs_repeatedly_with_independent_records():
    import pulumi_aws as aws
    import pulumi_eks as eks

    def program() -> None:
        cluster = eks.Cluster("gpu-eks", skip_default_node_group=True)
        eks.ManagedNodeGroup(
            "a100",
            cluster=cluster,
            node_role_arn="arn:aws:iam::123456789012:role/nodes",
            instance_types=["p4d.24xlarge"],
            ami_type="AL2023_x86_64_NVIDIA",
            taints=[aws.eks.NodeGroupTaintArgs(key="nvidia.com/gpu", value="true", effect="NO_SCHEDULE")],
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(desired_size=1, min_size=0, max_size=2),
        )
        pulumi.export("kubeconfig", cluster.get_kubeconfig())
        pulumi.export("account", aws.get_caller_identity_output().account_id)

    for attempt in range(5):
        run = run_program(program, project="proj", stack=f"eks{attempt}", config={})
        resources = _by_name(run)
        assert sorted(resources) == ["a100", "gpu-eks"]
        group = resources["a100"].inputs
        assert group["instanceTypes"] == ["p4d.24xlarge"]
        assert group["amiType"] == "AL2023_x86_64_NVIDIA"
        assert group["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]
        # The cluster reference reaches the mock as the component's URN, computed by the engine's rule.
        assert group["cluster"] == resources["gpu-eks"].urn
        assert resources["gpu-eks"].urn == f"urn:pulumi:eks{attempt}::proj::eks:index:Cluster::gpu-eks"
        assert run.outputs == {"kubeconfig": MOCK_KUBECONFIG, "account": "123456789012"}
        assert sorted(call.token for call in run.calls) == [
            "aws:index/getCallerIdentity:getCallerIdentity",
            "eks:index:Cluster/getKubeconfig",
        ]


def test_aks_user_credentials_call_returns_a_kubeconfig():
    import pulumi_azure_native as azure_native

    def program() -> None:
        group = azure_native.resources.ResourceGroup("rg", resource_group_name="gpu-dev-rg")
        cluster = azure_native.containerservice.ManagedCluster("aks", resource_group_name=group.name, dns_prefix="gpu")
        credentials = azure_native.containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=group.name, resource_name=cluster.name
        )
        pulumi.export("kubeconfig", credentials.kubeconfigs[0].value.apply(lambda b64: base64.b64decode(b64).decode()))
        pulumi.export("fqdn", cluster.fqdn)

    run = run_program(program, project="proj", stack="dev", config={})

    assert run.outputs == {"kubeconfig": MOCK_KUBECONFIG, "fqdn": "aks-dns.hcp.eastus.azmk8s.io"}
    (call,) = run.calls
    assert call.token == "azure-native:containerservice:listManagedClusterUserCredentials"
    assert call.args == {"resourceGroupName": "gpu-dev-rg", "resourceName": "aks"}


def test_program_errors_propagate_without_stray_tracebacks(caplog):
    def failing() -> None:
        import pulumi_kubernetes as k8s

        k8s.core.v1.Namespace("before")
        raise RuntimeError("no GPU quota")

    def duplicate() -> None:
        import pulumi_kubernetes as k8s

        k8s.core.v1.Namespace("twice")
        k8s.core.v1.Namespace("twice")

    root_before = runtime_settings.get_root_resource()
    with caplog.at_level(logging.ERROR):
        with pytest.raises(ValueError, match="Duplicate resource URN"):
            run_program(duplicate, project="proj", stack="dev", config={})
        with pytest.raises(RuntimeError, match="no GPU quota"):
            run_program(failing, project="proj", stack="dev", config={})
        # The failed registration's futures are collected once a later run replaces the runtime state.
        gc.collect()
    assert "never retrieved" not in caplog.text
    assert runtime_settings.get_root_resource() is root_before  # the caller's runtime state is untouched


def test_config_objects_and_program_directories(tmp_path):
    (tmp_path / "naming.py").write_text("def pool_name(pool):\n    return f\"{pool['name']}-{pool['size']}\"\n")
    (tmp_path / "__main__.py").write_text(
        textwrap.dedent("""\
        import pulumi
        import pulumi_kubernetes as k8s
        from naming import pool_name

        config = pulumi.Config("proj")
        for pool in config.require_object("gpuPools"):
            k8s.core.v1.Namespace(pool_name(pool), metadata={"labels": {"count": str(pool["count"])}})
        pulumi.export("cloud", config.require("cloud"))
        pulumi.export("replicas", config.require_int("replicas"))
        pulumi.export("gfd", config.require_bool("gfd"))
        """)
    )
    first = run_program(
        tmp_path,
        project="proj",
        stack="dev",
        config={
            "proj:cloud": "azure",
            "proj:gpuPools": [{"name": "mig", "size": "nd96", "count": 2}],
            "replicas": 4,
            "gfd": True,
        },
    )
    second = run_program(
        tmp_path / "__main__.py",
        project="proj",
        stack="prod",
        config={
            "proj:cloud": "aws",
            "proj:gpuPools": [{"name": "a", "size": "p4d", "count": 1}],
            "replicas": 1,
            "gfd": False,
        },
    )

    assert first.outputs == {"cloud": "azure", "replicas": 4, "gfd": True}
    assert [(r.name, r.inputs["metadata"]) for r in first.resources] == [("mig-nd96", {"labels": {"count": "2"}})]
    assert second.outputs == {"cloud": "aws", "replicas": 1, "gfd": False}
    assert [r.name for r in second.resources] == ["a-p4d"]
    assert "naming" not in sys.modules and str(tmp_path) not in sys.path


def test_dumped_inputs_have_sorted_keys_and_keep_list_order():
    # Inputs arrive through protobuf Struct maps whose order changes run to run; the dump must not.
    from gpupools.testing import ProgramRun, RecordedResource

    inputs = {"zeta": 1.0, "alpha": {"z": [3, 1, {"b": 2.5, "a": 2.0}], "a": None}, "mid": "x"}
    run = ProgramRun(
        resources=[
            RecordedResource(
                type="t:m:R",
                name="r",
                urn="urn:r",
                parent=None,
                inputs=inputs,
                provider=None,
                custom=True,
                options={"providers": {"kubernetes": "k", "aws": "a"}},
            )
        ],
        outputs={},
        calls=[],
        errors=[],
        warnings=[],
    )
    (dumped,) = dump_resources(run)
    assert json.dumps(dumped["inputs"]) == (
        '{"alpha": {"a": null, "z": [3, 1, {"a": 2, "b": 2.5}]}, "mid": "x", "zeta": 1}'
    )
    assert list(dumped["options"]["providers"]) == ["aws", "kubernetes"]
