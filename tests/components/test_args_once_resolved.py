"""Component args given as Pulumi outputs are checked by the same rules once they resolve (issue 25): a bad value
fails the deployment naming the field, a secret's value is never quoted, and good outputs (secret or not) pass."""

from __future__ import annotations

import pulumi
import pytest

from gpupools.azure import AksGpuPool
from support.component_inputs import AKS_MIG1G_POOL
from support.resources import run_mocked

POOL = AKS_MIG1G_POOL
AGENT_POOL = "azure-native:containerservice:AgentPool"


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("count", -1, "args.count: Input should be greater than or equal to 0 (once resolved)"),
        ("count", "2", "args.count: Input should be a valid integer (once resolved)"),
        ("pool_name", "Not_A_Pool", "args.pool_name:"),
    ],
)
def test_an_output_that_resolves_to_a_bad_value_fails_with_the_fields_name(field: str, value, says: str) -> None:
    def program() -> None:
        AksGpuPool("gpu", {**POOL, field: pulumi.Output.from_input(value)})

    with pytest.raises(ValueError) as caught:  # Pulumi wraps it as the registration's ValueError
        run_mocked(program)
    assert says in str(caught.value) and "AksGpuPool('gpu')" in str(caught.value)


def test_a_secret_that_resolves_to_a_bad_value_is_not_quoted() -> None:
    def program() -> None:
        AksGpuPool("gpu", {**POOL, "pool_name": pulumi.Output.secret("Sekr3t_Value")})

    with pytest.raises(ValueError) as caught:  # Pulumi wraps it as the registration's ValueError
        run_mocked(program)
    assert "args.pool_name" in str(caught.value) and "Sekr3t" not in str(caught.value)


def test_good_outputs_and_secrets_pass_and_register() -> None:
    def program() -> None:
        AksGpuPool("gpu", {**POOL, "count": pulumi.Output.secret(2), "pool_name": pulumi.Output.from_input("mig1g")})

    run = run_mocked(program)
    [agent_pool] = [r for r in run.resources if r.type == AGENT_POOL]
    assert agent_pool.inputs["agentPoolName"] == "mig1g"
