"""A stack's warnings are given once each (issue 25): 1,000 repeated draAlphaGates are one warning, not 1,000."""

from __future__ import annotations

from gpupools.resolve.stack_loader import load_stack


def test_a_repeated_cause_is_warned_once() -> None:
    stack = load_stack(
        {
            "cloud": "azure",
            "cluster": {
                "name": "c",
                "resourceGroup": "rg",
                "location": "southcentralus",
                "kubernetesVersion": "1.34",
                "systemPool": {"size": "Standard_D4s_v5"},
            },
            "gpuPools": [{"name": "a100", "size": "Standard_NC24ads_A100_v4", "count": 1}],
            "gpuSoftware": {"installer": "dra-driver", "draAlphaGates": ["MPSSupport"] * 1000},
        }
    )
    unused = [warning for warning in stack.warnings if "draAlphaGates: MPSSupport is named" in warning]
    assert len(unused) == 1, stack.warnings[:3]
