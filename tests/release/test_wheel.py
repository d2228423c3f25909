"""The wheel is the product: installed alone, ``gpupools plan`` plans any stack file from any directory.

The wheel is the session's (built once, from the sdist of this checkout: tests/release/conftest.py),
installed with pip into a fresh virtual environment that reaches the pinned SDKs of this one through a
``.pth`` line but not the repository's ``components/``, so every plan below runs the wheel's own files.
Expected figures are published ones: Standard_ND96asr_v4 and p4d.24xlarge carry 8x A100 40GB; an A100
40GB holds 7x 1g.5gb or 2x 3g.20gb, and NVIDIA's all-balanced layout is 2x 1g.5gb + 1x 2g.10gb + 1x 3g.20gb
per GPU.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def wheel_venv(dist: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    wheel = dist["wheel"]  # the session's build (tests/release/conftest.py), installed here apart from components/
    work = tmp_path_factory.mktemp("wheel")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site_packages = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # The SDKs of this environment, without running its .pth files (the editable install of components/).
    (site_packages / "sdks.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
            "--quiet",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr
    return venv


def _clean_env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PULUMI", "VIRTUAL_ENV"))}


def _lone_stack(tmp_path: Path, name: str) -> Path:
    """A repository stack file copied to a folder with no Pulumi.yaml at or above it."""
    folder = tmp_path / "stacks"
    folder.mkdir(exist_ok=True)
    return Path(shutil.copy2(ROOT / f"Pulumi.{name}.yaml", folder))


def _plan(venv: Path, stack_file: Path, cwd: Path) -> dict:
    result = subprocess.run(
        [str(venv / "bin" / "gpupools"), "plan", "--config", str(stack_file), "--json"],
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _per_node(plan: dict) -> dict[str, dict[str, int]]:
    return {pool["pool"]: pool["perNode"] for pool in plan["capacity"]}


def test_the_wheel_venv_imports_the_wheel_not_the_repository(wheel_venv: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [str(wheel_venv / "bin" / "python"), "-c", "import gpupools.platform.program as p; print(p.__file__)"],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).is_relative_to(wheel_venv)


def test_plan_a_lone_azure_stack_file_from_the_wheel(wheel_venv: Path, tmp_path: Path) -> None:
    stack = _lone_stack(tmp_path, "dev")
    plan = _plan(wheel_venv, stack, cwd=tmp_path)
    assert plan["cloud"] == "azure"
    assert _per_node(plan) == {"mig1g": {"nvidia.com/gpu": 8 * 7}}
    assert plan["outputs"]["gpuPools"]["mig1g"]["resourcesPerNode"] == {"nvidia.com/gpu": 56}
    (pool,) = [r for r in plan["resources"] if r["type"] == "azure-native:containerservice:AgentPool"]
    assert pool["inputs"]["gpuInstanceProfile"] == "MIG1g" and pool["inputs"]["resourceName"] == "gpu-dev"
    assert plan["outputs"]["kubeconfig"] == "[secret]"


def test_plan_a_lone_eks_stack_file_from_another_directory(wheel_venv: Path, tmp_path: Path) -> None:
    stack = _lone_stack(tmp_path, "eks")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    plan = _plan(wheel_venv, stack, cwd=elsewhere)
    assert _per_node(plan) == {
        "p4d-balanced": {"nvidia.com/mig-1g.5gb": 8 * 2, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8}
    }
    group = next(
        r for r in plan["resources"] if r["type"] == "eks:index:ManagedNodeGroup" and r["parent"] == "p4d-balanced"
    )
    assert group["inputs"]["labels"]["nvidia.com/mig.config"] == "all-balanced"


EXAMPLE_RUN = textwrap.dedent(
    """\
    import json, sys
    from gpupools.testing import RecordingMocks, run_program

    class PlatformStack(RecordingMocks):
        def new_resource(self, args):
            if args.typ == "pulumi:pulumi:StackReference":
                outputs = """
    """{"clusterName": "shared-aks", "resourceGroupName": "platform-rg", "kubeconfig": "apiVersion: v1"}
                return f"{args.name}-id", {"name": args.name, "outputs": outputs, "secretOutputNames": []}
            return super().new_resource(args)

    config = {"gpu-team-pool:clusterStack": "platform/gpupools/existing", "gpu-team-pool:poolName": "team3g",
              "gpu-team-pool:vmSize": "Standard_ND96asr_v4", "gpu-team-pool:migProfile": "MIG3g",
              "gpu-team-pool:nodes": "2"}
    run = run_program(sys.argv[1], project="gpu-team-pool", stack="team", config=config, mocks=PlatformStack())
    pools = [r.inputs for r in run.resources if r.type == "azure-native:containerservice:AgentPool"]
    print(json.dumps({"slices": run.outputs["slices"], "pools": pools}))
    """
)


def test_the_example_project_runs_from_the_wheel(wheel_venv: Path, tmp_path: Path) -> None:
    example = Path(
        shutil.copytree(
            ROOT / "examples" / "existing-aks-mig",
            tmp_path / "team",
            ignore=shutil.ignore_patterns("__pycache__", ".venv"),
        )
    )
    result = subprocess.run(
        [str(wheel_venv / "bin" / "python"), "-c", EXAMPLE_RUN, str(example)],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout.strip().splitlines()[-1])
    assert run["slices"] == {"nvidia.com/gpu": 2 * 8 * 2}  # 3g.20gb: two per A100 40GB, 8 GPUs, 2 nodes
    (pool,) = run["pools"]
    assert (pool["resourceName"], pool["gpuInstanceProfile"]) == ("shared-aks", "MIG3g")


def test_plan_of_a_project_runs_the_projects_own_program(wheel_venv: Path, tmp_path: Path) -> None:
    """A stack file beside a Pulumi project with a Python program plans that program, not the packaged one."""
    project = tmp_path / "own"
    (project / "prog").mkdir(parents=True)
    (project / "Pulumi.yaml").write_text("name: own\nruntime: python\nmain: prog/\n")
    (project / "prog" / "__main__.py").write_text("import pulumi\npulumi.export('mine', True)\n")
    stack = Path(shutil.copy2(ROOT / "Pulumi.dev.yaml", project))
    plan = _plan(wheel_venv, stack, cwd=tmp_path)
    assert plan["outputs"] == {"mine": True} and plan["resources"] == []
    assert _per_node(plan) == {"mig1g": {"nvidia.com/gpu": 56}}  # capacity still comes from the validated config
