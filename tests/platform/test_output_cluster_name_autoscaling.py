"""An autoscaled EKS pool tags its Auto Scaling group with ``k8s.io/cluster-autoscaler/<cluster>``: with the cluster's
name an output (a team stack's StackReference), that key is unknown while planning, so the args are refused before
anything registers rather than sending the validation placeholder to AWS. AKS's node templates name no cluster."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpupools.component_args import ComponentArgsError
from gpupools.platform import GpuPlatform
from gpupools.testing import RecordingMocks, run_program

EXISTING_EKS = {
    "cloud": "aws",
    "cluster": {"name": "gpu-eks", "create": False, "region": "us-east-1"},
    "gpu_pools": [{"name": "team", "size": "p4d.24xlarge", "count": 1, "mig": {"layout": "all-1g.5gb"}}],
    "gpu_software": {"installer": "gpu-operator", "version": "v26.7.0", "mig_strategy": "mixed", "install": False},
}
AUTOSCALED = {"autoscaling": {"min_count": 1, "max_count": 3}}


def _run(args: Any) -> RecordingMocks:
    mocks = RecordingMocks()

    def program() -> None:
        GpuPlatform("team", args())

    run_program(program, project="team", stack="test", config={}, mocks=mocks)
    return mocks


def _with(name_as_output: bool, pool: dict[str, Any]) -> Any:
    def args() -> dict[str, Any]:
        name = pulumi.Output.from_input("gpu-eks") if name_as_output else "gpu-eks"
        return {
            **EXISTING_EKS,
            "cluster": {**EXISTING_EKS["cluster"], "name": name},
            "gpu_pools": [{**EXISTING_EKS["gpu_pools"][0], **pool}],
        }

    return args


def test_autoscaling_with_an_output_cluster_name_is_refused_before_anything_registers() -> None:
    mocks = RecordingMocks()
    with pytest.raises(ComponentArgsError) as error:
        run_program(
            lambda: GpuPlatform("team", _with(True, AUTOSCALED)()), project="team", stack="t", config={}, mocks=mocks
        )
    assert "args.gpu_pools[0].autoscaling: needs cluster.name as a plain string" in str(error.value)
    assert mocks.resources == []


def test_the_same_pool_with_a_plain_name_tags_its_group_for_that_cluster() -> None:
    mocks = _run(_with(False, AUTOSCALED))
    tags = [r.inputs["tag"]["key"] for r in mocks.resources if r.type == "aws:autoscaling/tag:Tag"]
    assert "k8s.io/cluster-autoscaler/gpu-eks" in tags


def test_a_fixed_pool_may_name_its_cluster_by_an_output() -> None:
    mocks = _run(_with(True, {}))
    assert [r for r in mocks.resources if r.type == "aws:eks/nodeGroup:NodeGroup"]
