"""``gpuSoftware.install: false`` (issue 28): a team stack on a shared cluster whose owner already runs the NVIDIA
software installs no chart of its own, and says what its plan takes on trust. Only an existing cluster has an
owner to run it."""

from __future__ import annotations

import copy

from gpupools.resolve.stack_loader import load_stack

from support.base_configs import AWS, AZURE, config, messages_at


def test_a_created_cluster_must_install_its_software() -> None:
    raw = config(AWS, gpuSoftware={"install": False})
    (message,) = messages_at(raw, "gpupools:gpuSoftware.install")
    assert "create: false" in message


def test_an_existing_cluster_may_leave_it_to_its_owner_and_the_plan_says_so() -> None:
    raw = copy.deepcopy(AWS)
    raw["gpupools:cluster"] = {"name": "gpu-eks", "region": "us-east-1", "create": False}
    raw["gpupools:gpuSoftware"]["install"] = False
    stack = load_stack(raw)
    [warning] = [w for w in stack.warnings if w.startswith("gpuSoftware.install is false")]
    # The owner's release the plan assumes: installer, pinned version, namespace and strategy.
    assert "gpu-operator v26.7.0 in namespace gpu-operator with migStrategy mixed" in warning
    # Capacity is still planned from the same settings.
    assert stack.pools[0].mig is not None


def test_installing_says_nothing() -> None:
    assert not [w for w in load_stack(config(AZURE)).warnings if "gpuSoftware.install" in w]
