"""The real stack program (``infra/``, or the packaged one for a lone stack file), run offline per stack file, and the
``gpupools plan`` command over it.

Expected capacities are published figures: Standard_ND96asr_v4 and p4d.24xlarge each carry 8x A100 40GB;
an A100 40GB holds 7x 1g.5gb or 2x 3g.20gb, and NVIDIA's ``all-balanced`` layout is 2x 1g.5gb + 1x 2g.10gb
+ 1x 3g.20gb per GPU; g5.12xlarge carries 4x A10G.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pulumi
import pytest
import yaml

from gpupools.cli import main
from gpupools.config import ConfigError, read_stack_file
from gpupools.plan.offline import plan_stack, program_location, pulumi_config_values
from gpupools.testing import RecordingMocks, run_program
from support.resources import plan_named as _named, plan_of_type as _of_type, plan_one as _one
from support.stack_files import plan_repo_stack as _plan

ROOT = Path(__file__).resolve().parents[2]
RELEASE = "kubernetes:helm.sh/v3:Release"
AGENT_POOL = "azure-native:containerservice:AgentPool"
NODE_GROUP = "eks:index:ManagedNodeGroup"
TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
CIPHERTEXT = "v1:AAAbogusCipherTextThatMustNeverPrint=="

SHARING_STACK = f"""\
config:
  aws:region: us-east-1
  aws:secretKey:
    secure: {CIPHERTEXT}
  gpupools:cloud: aws
  gpupools:cluster:
    name: gpu-share
    region: us-east-1
    systemPool: {{size: m6i.large, count: 2}}
  gpupools:gpuPools:
    - name: g5
      size: g5.12xlarge
      count: 2
      smokeTest: true
      sharing:
        timeSlicing: {{replicas: 4}}
  gpupools:gpuSoftware:
    installer: device-plugin
    migStrategy: none
"""
# Three problems at once: an aws size on azure, a MIG profile A100s do not have, an AKS-invalid pool name.
BAD_STACK = """\
config:
  gpupools:cloud: azure
  gpupools:cluster: {name: gpu-bad, resourceGroup: rg, location: eastus, systemPool: {size: Standard_D4s_v5}}
  gpupools:gpuPools:
    - {name: p4d, size: p4d.24xlarge}
    - {name: MIG_Pool, size: Standard_ND96asr_v4, mig: {profile: MIG5g}}
  gpupools:gpuSoftware: {installer: device-plugin, migStrategy: single}
"""


@pytest.fixture(scope="module")
def dev():
    return _plan("dev")


@pytest.fixture(scope="module")
def eks():
    return _plan("eks")


@pytest.fixture(scope="module")
def existing():
    return _plan("existing")


@pytest.fixture(scope="module")
def sharing_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sharing") / "Pulumi.share.yaml"
    path.write_text(SHARING_STACK)
    return path


@pytest.fixture(scope="module")
def sharing(sharing_file):
    return plan_stack(read_stack_file(sharing_file))


def test_dev_stack(dev):
    pool = _one(dev, AGENT_POOL)["inputs"]
    assert pool["vmSize"] == "Standard_ND96asr_v4" and pool["count"] == 1
    assert pool["gpuInstanceProfile"] == "MIG1g"
    assert pool["nodeTaints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert pool["resourceName"] == "gpu-dev" and pool["resourceGroupName"] == "gpu-dev-rg"
    # A pool with nodes rotates by surge: the replacement (a new name) is created before the old pool is deleted.
    assert _one(dev, AGENT_POOL)["options"]["deleteBeforeReplace"] is False
    release = _one(dev, RELEASE)["inputs"]
    assert release["chart"] == "nvidia-device-plugin" and release["version"] == "0.20.0"
    assert release["values"]["migStrategy"] == "single" and release["values"]["gfd"] == {"enabled": True}
    assert len(_of_type(dev, "azure-native:containerservice:ManagedCluster")) == 1
    outputs = dev.outputs
    assert outputs["clusterName"] == "gpu-dev" and outputs["kubeconfig"] == "[secret]"
    assert outputs["gpuPools"]["mig1g"]["resourcesPerNode"] == {"nvidia.com/gpu": 56}  # 8 GPUs x 7 1g.5gb
    assert outputs["gpuToleration"] == TOLERATION
    assert outputs["gpuSoftware"]["chart"] == "nvidia-device-plugin" and outputs["gpuSoftware"]["version"] == "0.20.0"
    assert outputs["gpuSoftware"]["migStrategy"] == "single"


@pytest.mark.parametrize("stack", ["dev", "eks", "existing"])
def test_charts_wait_for_gpu_pools_and_use_the_cluster_provider(stack, request):
    plan = request.getfixturevalue(stack)
    (provider,) = _of_type(plan, "pulumi:providers:kubernetes")
    (software,) = [
        r
        for r in plan.resources
        if r["type"] in ("gpupools:index:NvidiaDevicePlugin", "gpupools:index:NvidiaGpuOperator")
    ]
    # GPU pools, not the EKS system node group (a sibling of the provider under the cluster component).
    pools = [r for r in plan.resources if r["type"] in (AGENT_POOL, NODE_GROUP) and r["parent"] != provider["parent"]]
    assert pools and all(
        any(dep.endswith(f"::{p['name']}") for dep in software["options"]["dependencies"]) for p in pools
    )
    for resource in plan.resources:
        if resource["type"].startswith("kubernetes:"):
            assert f"pulumi:providers:kubernetes::{provider['name']}::" in resource["options"]["provider"]


def test_eks_stack(eks):
    # A surge pool's node group is named by its generation (issue 27: a new URN per generation, create-first).
    generation = eks.outputs["gpuPools"]["p4d-balanced"]["cloudPoolName"]
    (group,) = [g for g in _of_type(eks, NODE_GROUP) if g["name"] == f"p4d-balanced-{generation}"]
    assert group["inputs"]["labels"]["nvidia.com/mig.config"] == "all-balanced"
    assert group["inputs"]["instanceTypes"] == ["p4d.24xlarge"]
    assert group["inputs"]["amiType"] == "AL2023_x86_64_NVIDIA"
    # GPU node groups share the cluster's node role (its access entry already lets those nodes join).
    (cluster_role,) = [r for r in _of_type(eks, "aws:iam/role:Role")]
    assert group["inputs"]["nodeRole"] == cluster_role["name"]  # pulumi-aws: a role's id is its name
    release = _one(eks, RELEASE)["inputs"]
    assert release["chart"] == "gpu-operator" and release["version"] == "v26.7.0"
    values = release["values"]
    assert values["mig"] == {"strategy": "mixed"}
    assert values["migManager"]["enabled"] is True
    assert {"name": "WITH_REBOOT", "value": "true"} in values["migManager"]["env"]
    assert values["driver"]["enabled"] is False  # the NVIDIA AMI ships the driver
    assert values["toolkit"]["enabled"] is False
    assert eks.outputs["gpuPools"]["p4d-balanced"]["resourcesPerNode"] == {
        "nvidia.com/mig-1g.5gb": 16,
        "nvidia.com/mig-2g.10gb": 8,
        "nvidia.com/mig-3g.20gb": 8,
    }
    assert eks.outputs["kubeconfig"] == "[secret]" and not [r for r in eks.resources if r["type"].startswith("azure")]


def test_eks_resources_deploy_to_the_configured_region(eks):
    # gpupools:cluster.region (us-east-1 in Pulumi.eks.yaml) decides, not aws:region or the environment.
    provider = _one(eks, "pulumi:providers:aws")
    assert provider["inputs"]["region"] == "us-east-1"
    aws_side = [r for r in eks.resources if r["type"].startswith(("aws:", "eks:"))]
    assert aws_side
    for resource in aws_side:
        options = resource.get("options", {})
        used = options.get("provider") or options.get("providers", {}).get("aws")
        assert used and used.split("::")[-2] == provider["name"], resource["name"]


def test_existing_cluster_is_not_created(existing):
    types = {r["type"] for r in existing.resources}
    assert not types & {"azure-native:containerservice:ManagedCluster", "azure-native:resources:ResourceGroup"}
    pools = {r["inputs"]["nodeLabels"]["gpupools.io/pool"]: r["inputs"] for r in _of_type(existing, AGENT_POOL)}
    assert {name: p["gpuInstanceProfile"] for name, p in pools.items()} == {"mig1g": "MIG1g", "mig3g": "MIG3g"}
    assert {(p["resourceName"], p["resourceGroupName"]) for p in pools.values()} == {("shared-aks", "platform-rg")}
    assert _one(existing, RELEASE)["inputs"]["values"]["migStrategy"] == "mixed"
    per_node = {name: pool["resourcesPerNode"] for name, pool in existing.outputs["gpuPools"].items()}
    assert per_node == {"mig1g": {"nvidia.com/mig-1g.5gb": 56}, "mig3g": {"nvidia.com/mig-3g.20gb": 16}}


def test_sharing_and_smoke_test(sharing):
    group = _named(sharing, f"g5-{sharing.outputs['gpuPools']['g5']['cloudPoolName']}")["inputs"]
    assert group["labels"]["nvidia.com/device-plugin.config"] == "g5"
    assert group["instanceTypes"] == ["g5.12xlarge"]
    config = _one(sharing, RELEASE)["inputs"]["values"]["config"]
    assert config["default"] == "default"
    pool_config = yaml.safe_load(config["map"]["g5"])
    assert pool_config["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    assert "sharing" not in yaml.safe_load(config["map"]["default"])
    assert sharing.outputs["gpuPools"]["g5"]["resourcesPerNode"] == {"nvidia.com/gpu": 16}  # 4 A10G x 4 replicas
    job = _one(sharing, "kubernetes:batch/v1:Job")
    assert job["parent"] == "g5-smoke"
    pod = job["inputs"]["spec"]["template"]["spec"]
    assert [c["resources"]["limits"] for c in pod["containers"]] == [{"nvidia.com/gpu": "1"}]
    assert pod["nodeSelector"] == {"gpupools.io/pool": "g5"} and pod["tolerations"] == [TOLERATION]
    smoke = _named(sharing, "g5-smoke")
    assert any(dep.endswith("::device-plugin-release") for dep in smoke["options"]["dependencies"])
    assert CIPHERTEXT not in json.dumps(sharing.to_json())


def test_program_location(tmp_path, sharing_file):
    # No Pulumi.yaml beside it: the packaged program, which infra/ runs too.
    from gpupools.platform.program import main as packaged

    assert program_location(sharing_file) == ("gpupools", packaged)
    assert program_location(ROOT / "Pulumi.dev.yaml") == ("gpupools", ROOT / "infra")
    (tmp_path / "prog").mkdir()
    (tmp_path / "prog" / "__main__.py").write_text("")
    (tmp_path / "Pulumi.yaml").write_text("name: mine\nruntime: python\nmain: prog/\n")
    assert program_location(tmp_path / "Pulumi.x.yaml") == ("mine", tmp_path / "prog")


def test_bad_config_registers_nothing(tmp_path, monkeypatch):
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(BAD_STACK)
    import gpupools.offline_runtime.runner as runner

    monkeypatch.setattr(runner, "run_program", lambda *a, **k: pytest.fail("the program ran on bad config"))
    with pytest.raises(ConfigError) as error:
        plan_stack(read_stack_file(path))
    fields = {p.field for p in error.value.problems}
    assert {"gpupools:gpuPools[0].size", "gpupools:gpuPools[1].mig.profile", "gpupools:gpuPools[1].name"} <= fields
    monkeypatch.undo()
    # The program itself refuses it too (as under `pulumi up`), before registering anything.
    mocks = RecordingMocks()
    with pytest.raises(pulumi.RunError, match="invalid gpupools config"):
        run_program(
            ROOT / "infra",
            project="gpupools",
            stack="bad",
            mocks=mocks,
            config=pulumi_config_values(read_stack_file(path).config),
        )
    assert mocks.resources == [] and mocks.calls == []


ISOLATION = textwrap.dedent(
    """\
    import sys
    from pathlib import Path
    from gpupools.config import read_stack_file
    from gpupools.plan.offline import plan_stack
    plan_stack(read_stack_file(Path(sys.argv[1])))
    print(sorted({m.split(".")[0] for m in sys.modules """
    """if m.startswith(("pulumi_aws", "pulumi_eks", "pulumi_azure_native"))}))
    """
)


def test_each_cloud_imports_only_its_own_sdks():
    env = {**os.environ, "PYTHONPATH": str(ROOT / "components")}
    runs = {
        stack: subprocess.Popen(
            [sys.executable, "-c", ISOLATION, str(ROOT / f"Pulumi.{stack}.yaml")],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for stack in ("dev", "eks")
    }
    results = {stack: process.communicate(timeout=120) for stack, process in runs.items()}
    for stack, process in runs.items():
        assert process.returncode == 0, results[stack][1]
    assert results["dev"][0].splitlines()[-1] == "['pulumi_azure_native']"
    assert results["eks"][0].splitlines()[-1] == "['pulumi_aws', 'pulumi_eks']"


def test_cli_plan_text(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["plan", "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert "56x nvidia.com/gpu" in out and "Standard_ND96asr_v4" in out and "gpuInstanceProfile = MIG1g" in out


def test_cli_plan_json_hides_secure_values(sharing_file, capsys):
    assert main(["plan", "--config", str(sharing_file), "--json"]) == 0
    captured = capsys.readouterr()
    assert CIPHERTEXT not in captured.out + captured.err
    document = json.loads(captured.out)
    assert {"stack", "cloud", "resources", "capacity", "warnings"} <= set(document)
    assert document["stack"] == "share" and document["cloud"] == "aws"
    assert all({"type", "name", "parent", "inputs"} <= set(r) for r in document["resources"])
    (g5,) = document["capacity"]
    assert g5["perNode"] == {"nvidia.com/gpu": 16} and g5["total"] == {"nvidia.com/gpu": 32}
    assert main(["plan", "--config", str(sharing_file)]) == 0
    captured = capsys.readouterr()
    assert CIPHERTEXT not in captured.out + captured.err and "replicas: 4" in captured.out


def test_cli_bad_config_exits_2(tmp_path, capsys):
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(BAD_STACK)
    assert main(["plan", "--config", str(path)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) >= 3 and all(line.startswith("error: gpupools:") for line in lines)
    assert "Traceback" not in captured.err + captured.out and captured.out == ""


def test_only_gpupools_values_and_plain_provider_settings_reach_the_program():
    values = pulumi_config_values(
        {
            "gpupools:cloud": "aws",
            "gpupools:gpuPools": [{"name": "p4d"}],
            "azure-native:location": "eastus",
            "aws:maxRetries": 5,
            "aws:skipCredentialsValidation": True,
            "myapp:nested": {"deep": [1, 2]},
            "myapp:list": [1],
            "myapp:nothing": None,
        }
    )
    assert values == {
        "gpupools:cloud": "aws",
        "gpupools:gpuPools": '[{"name": "p4d"}]',
        "azure-native:location": "eastus",
        "aws:maxRetries": "5",
        "aws:skipCredentialsValidation": "true",
    }


def test_plan_never_serialises_other_namespaces(tmp_path, monkeypatch):
    # An object under another namespace is not this program's: it must not be JSON-encoded or copied.
    path = tmp_path / "Pulumi.other.yaml"
    path.write_text(SHARING_STACK + "  myapp:settings: {when: 2025-01-01, items: [a, b]}\n")
    import gpupools.plan.offline as offline_plan

    encoded = []
    real_dumps = offline_plan.json.dumps
    monkeypatch.setattr(
        offline_plan.json, "dumps", lambda value, *a, **k: encoded.append(value) or real_dumps(value, *a, **k)
    )
    plan = plan_stack(read_stack_file(path))
    assert plan.cloud == "aws"
    assert not [value for value in encoded if isinstance(value, dict) and "items" in value]
