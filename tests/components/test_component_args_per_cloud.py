"""Each cloud's argument models load only when asked for: an AKS plan never builds the EKS ones, nor the other way.

Building the pydantic classes of one cloud's models costs a plan 10 to 20 ms, 1% of its import floor.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import gpupools.component_args as component_args


def _loaded_after(code: str) -> set[str]:
    script = textwrap.dedent(code) + "\nimport sys; print(' '.join(m for m in sys.modules if '.component_args' in m))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    return {name.rpartition(".")[2] for name in done.stdout.split()}


@pytest.mark.parametrize(
    "component, loads, skips",
    [("gpupools.azure.gpu_pool", "azure", "aws"), ("gpupools.aws.gpu_node_group", "aws", "azure")],
)
def test_a_clouds_component_loads_its_own_models_only(component: str, loads: str, skips: str) -> None:
    loaded = _loaded_after(f"import {component}")
    assert loads in loaded and skips not in loaded


def test_the_stack_program_of_an_aks_stack_loads_no_eks_models() -> None:
    loaded = _loaded_after("import gpupools.platform.inputs, gpupools.platform.azure")
    assert "aws" not in loaded and {"azure", "kubernetes", "fields", "checking"} <= loaded


def test_every_exported_name_is_still_there() -> None:
    for name in component_args.__all__:
        assert getattr(component_args, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'NotAModel'"):
        component_args.NotAModel  # noqa: B018
