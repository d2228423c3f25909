"""A stack on a cloud whose SDK is not installed is the user's install to fix: one ``error:`` line naming the extra,
status 2, from ``plan``, from ``GpuPlatform`` and from the stack program, never "internal error ... a gpupools bug".

Each case runs in a subprocess whose import system refuses the other cloud's SDK (a meta path finder), as a venv
with only ``gpupools[azure]`` or only ``gpupools[aws]`` would. The extras themselves are read from pyproject.toml.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from gpupools.catalog.extras import CLOUD_EXTRAS

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# Per cloud: a stack file of this repository on that cloud, and the SDK modules the other extra installs.
STACKS = {"aws": "Pulumi.eks.yaml", "azure": "Pulumi.dev.yaml"}
REFUSE = textwrap.dedent("""\
    import sys

    REFUSED = sys.argv.pop(1).split(",")

    class Refuse:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in REFUSED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Refuse())
    """)
CLI = REFUSE + "from gpupools.cli import main\nsys.exit(main())\n"
PLATFORM = REFUSE + textwrap.dedent("""\
    import json
    from gpupools.config import read_stack_file
    from gpupools.platform import GpuPlatform
    from gpupools.platform.inputs import args_from_config
    from gpupools.resolve.stack_loader import load_stack
    from gpupools.testing import RecordingMocks, run_program

    stack = load_stack(read_stack_file(sys.argv[1]).config)
    mocks = RecordingMocks()
    try:
        run_program(lambda: GpuPlatform("platform", args_from_config(stack.config)), project="p", stack="s",
                    config={}, mocks=mocks)
    except ModuleNotFoundError as error:
        print(json.dumps({"type": type(error).__name__, "message": str(error), "registered": len(mocks.resources)}))
    """)
PROGRAM = REFUSE + textwrap.dedent("""\
    import json
    from gpupools.config import read_stack_file
    from gpupools.plan.offline import pulumi_config_values
    from gpupools.platform.program import main
    from gpupools.testing import RecordingMocks, run_program

    stack_file = read_stack_file(sys.argv[1])
    mocks = RecordingMocks()
    try:
        run_program(main, project="gpupools", stack=stack_file.stack, config=pulumi_config_values(stack_file.config),
                    mocks=mocks)
    except Exception as error:
        print(json.dumps({"type": type(error).__name__, "message": str(error), "registered": len(mocks.resources)}))
    """)


def run(script: str, refused: tuple[str, ...], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, ",".join(refused), *argv],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "components")},
        capture_output=True,
        text=True,
        timeout=120,
    )


def expected(cloud: str, needed_by: str) -> str:
    extra = CLOUD_EXTRAS[cloud]
    return f"{needed_by} needs {extra.what}: pip install 'gpupools[{cloud}]' ({extra.modules[0]} is not installed)"


def test_the_extras_are_the_ones_pyproject_declares() -> None:
    declared = PYPROJECT["project"]["optional-dependencies"]
    for cloud, extra in CLOUD_EXTRAS.items():
        distributions = {
            requirement.split(">")[0].split("<")[0].split("=")[0].strip().replace("-", "_")
            for requirement in declared[extra.name]
        }
        assert distributions == set(extra.modules), cloud


@pytest.mark.parametrize("cloud", sorted(STACKS))
def test_plan_names_the_missing_extra(cloud) -> None:
    stack = STACKS[cloud]
    result = run(CLI, CLOUD_EXTRAS[cloud].modules, "plan", "--config", stack)
    stack_name = stack.split(".")[1]
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.splitlines() == [f"error: {expected(cloud, f'stack {stack_name} on {cloud}')}"]


@pytest.mark.parametrize("cloud", sorted(STACKS))
def test_check_needs_no_cloud_sdk(cloud) -> None:
    result = run(CLI, CLOUD_EXTRAS[cloud].modules, "check", "--config", STACKS[cloud])
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("cloud", sorted(STACKS))
def test_gpu_platform_names_the_missing_extra_before_registering(cloud) -> None:
    result = run(PLATFORM, CLOUD_EXTRAS[cloud].modules, STACKS[cloud])
    message = expected(cloud, f"GpuPlatform 'platform' on {cloud}")
    assert json.loads(result.stdout) == {"type": "MissingExtraError", "registered": 0, "message": message}, (
        result.stderr
    )


@pytest.mark.parametrize("cloud", sorted(STACKS))
def test_the_stack_program_stops_with_one_line(cloud) -> None:
    # pulumi.RunError is what the Python host prints as a message without a traceback.
    result = run(PROGRAM, CLOUD_EXTRAS[cloud].modules, STACKS[cloud])
    message = expected(cloud, f"GpuPlatform 'gpupools' on {cloud}")
    assert json.loads(result.stdout) == {"type": "RunError", "registered": 0, "message": message}, result.stderr
