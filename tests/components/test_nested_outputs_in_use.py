"""What components do with list and dict args that hold outputs (issue 25): a priority list that is an output
reaches the autoscaler's values resolved; a smoke test's resource, which names a container and keys its limit,
must be known when the program runs and is refused as an output, naming the item, before anything registers."""

from __future__ import annotations

import pulumi
import pytest

from gpupools.component_args import ComponentArgsError
from gpupools.kubernetes.cluster_autoscaler import ClusterAutoscaler
from gpupools.kubernetes.smoke_test import GpuSmokeTest
from gpupools.testing import RecordingMocks
from support.resources import run_mocked

AUTOSCALER = {
    "cluster_name": "gpu-eks",
    "region": "us-east-1",
    "oidc_provider_arn": "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/ABC",
    "oidc_provider_url": "https://oidc.eks.us-east-1.amazonaws.com/id/ABC",
    "expander": "priority",
}


def test_a_priority_list_that_is_an_output_reaches_the_values_resolved() -> None:
    def program() -> None:
        priorities = {"10": pulumi.Output.from_input([".*p4d.*"]), "1": [".*"]}
        ClusterAutoscaler("ca", {**AUTOSCALER, "priorities": priorities})

    run = run_mocked(program)
    [release] = [r for r in run.resources if r.type == "kubernetes:helm.sh/v3:Release"]
    assert release.inputs["values"]["expanderPriorities"] == {"10": [".*p4d.*"], "1": [".*"]}


def test_a_smoke_test_resource_that_is_an_output_is_refused_before_anything_registers() -> None:
    mocks = RecordingMocks()

    def program() -> None:
        resources = ["nvidia.com/gpu", pulumi.Output.from_input("nvidia.com/mig-1g.5gb")]
        GpuSmokeTest(
            "smoke",
            {
                "pool_name": "p4d",
                "namespace": "gpu-operator",
                "resources": resources,
                "node_selector": {"gpupools.io/pool": "p4d"},
                "toleration_key": "nvidia.com/gpu",
            },
        )

    with pytest.raises(ComponentArgsError, match=r"args.resources\[1\]: Input should be a valid string"):
        run_mocked(program, mocks=mocks)
    assert not mocks.resources
