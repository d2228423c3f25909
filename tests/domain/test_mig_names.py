"""The plan names each MIG pool's slices in every spelling (issue 28): ``MIG1g = 1g.5gb on A100-40GB =
nvidia.com/mig-1g.5gb``, with the resource the pool's installer and strategy really give."""

from __future__ import annotations

from gpupools.domain.capacity_inputs import stack_capacity_inputs
from gpupools.domain.mig_names import pool_mig_names
from gpupools.resolve.stack_loader import load_stack

from support.base_configs import AWS, AZURE, config

ND96 = {"name": "mig", "size": "Standard_ND96asr_v4", "count": 1}


def names(raw: dict) -> str | None:
    stack = load_stack(raw)
    return pool_mig_names(stack, stack.pools[0])


def test_aks_pool_with_mixed_strategy_names_all_three() -> None:
    raw = config(AZURE, {**ND96, "mig": {"profile": "MIG1g"}}, gpuSoftware={"migStrategy": "mixed"})
    assert names(raw) == "MIG1g = 1g.5gb on A100-40GB = nvidia.com/mig-1g.5gb"


def test_single_strategy_says_pods_ask_for_nvidia_com_gpu() -> None:
    raw = config(AZURE, {**ND96, "mig": {"profile": "3g.20gb"}}, gpuSoftware={"migStrategy": "single"})
    assert (
        names(raw)
        == "MIG3g = 3g.20gb on A100-40GB = nvidia.com/gpu (migStrategy single; mixed: nvidia.com/mig-3g.20gb)"
    )


def test_eks_layout_lists_each_profile_without_aks_names() -> None:
    text = names(config(AWS))  # all-balanced on p4d.24xlarge, mixed
    assert text == (
        "1g.5gb on A100-40GB = nvidia.com/mig-1g.5gb, 2g.10gb on A100-40GB = nvidia.com/mig-2g.10gb, "
        "3g.20gb on A100-40GB = nvidia.com/mig-3g.20gb"
    )
    assert "MIG1g" not in text  # EKS has no AKS gpuInstanceProfile


def test_the_plan_line_carries_it_and_whole_gpu_pools_do_not() -> None:
    stack = load_stack(config(AZURE, {**ND96, "mig": {"profile": "MIG7g"}}, gpuSoftware={"migStrategy": "mixed"}))
    (pool,) = stack_capacity_inputs(stack)
    assert pool.to_json()["MIG"] == "MIG7g = 7g.40gb on A100-40GB = nvidia.com/mig-7g.40gb"
    whole = load_stack(config(AZURE, {"name": "whole", "size": "Standard_NC24ads_A100_v4", "mig": None}))
    assert "MIG" not in stack_capacity_inputs(whole)[0].to_json()


def test_with_the_dra_driver_pods_claim_the_driver_s_device() -> None:
    from support.dra_stacks import P4D_BALANCED

    text = names(P4D_BALANCED)
    assert "1g.5gb on A100-40GB = gpu.nvidia.com device type=mig profile=1g.5gb" in text
    assert "nvidia.com/mig-" not in text  # no device plugin advertises anything here
