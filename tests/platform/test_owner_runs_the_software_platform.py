"""A stack with ``gpuSoftware.install: false`` (``Pulumi.existing-eks.yaml``) registers its node groups but no NVIDIA
chart, no metrics exporter and nothing waiting on a chart; the same stack installing registers the release."""

from __future__ import annotations

from support.stack_files import plan_repo_stack

HELM = "kubernetes:helm.sh/v3:Release"


def test_the_owner_s_software_is_not_installed_again() -> None:
    plan = plan_repo_stack("existing-eks")
    types = [resource["type"] for resource in plan.resources]
    assert "aws:eks/nodeGroup:NodeGroup" in types
    assert HELM not in types
    assert not [t for t in types if t.startswith("gpupools:index:Nvidia")]


def test_a_stack_that_installs_registers_its_release() -> None:
    plan = plan_repo_stack("eks")
    assert HELM in [resource["type"] for resource in plan.resources]
