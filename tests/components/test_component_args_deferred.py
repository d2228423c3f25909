"""Argument models build their validators on first use: importing ``gpupools.component_args`` (which names every
cloud's models) builds none, and checking one cloud's component leaves the other cloud's models unbuilt."""

from __future__ import annotations

import subprocess
import sys

import pytest

import gpupools.component_args as component_args

MODELS = [name for name in component_args.__all__ if name.endswith("Model")]


def _built_after(code: str) -> set[str]:
    """The models with a built validator after ``code`` runs in a fresh interpreter."""
    script = (
        "import gpupools.component_args as c\n"
        f"{code}\n"
        f"print(' '.join(n for n in {MODELS!r} if getattr(c, n).__pydantic_complete__))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


def test_importing_builds_no_model():
    assert _built_after("") == set()


@pytest.mark.parametrize(
    ("model", "component", "args"),
    [
        ("AksGpuPoolArgsModel", "AksGpuPool", {"pool_name": "gpu"}),
        ("EksClusterArgsModel", "EksCluster", {"name": "gpu"}),
    ],
)
def test_a_check_builds_its_own_model_only(model, component, args):
    code = f"try:\n    c.check_args(c.{model}, {component!r}, 'x', {args!r})\nexcept c.ComponentArgsError:\n    pass"
    assert _built_after(code) == {model}
