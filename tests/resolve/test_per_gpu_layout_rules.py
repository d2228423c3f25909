"""A per-GPU layout (``mig.layout: [{gpus, mix} | {gpus, whole: true}]``): the shape, and each refusal as one line
naming the field, what was given and what is allowed."""

from __future__ import annotations

import pytest

from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from support.base_configs import AZURE, PINNED_AWS, config, messages_at

MIXED_NODE = [{"gpus": 6, "mix": {"1g.10gb": 4, "1g.20gb": 1, "2g.20gb": 1}}, {"gpus": 2, "whole": True}]
LAYOUT = "gpupools:gpuPools[0].mig.layout"


def _p4de(layout, strategy: str = "mixed") -> dict:
    return config(
        PINNED_AWS,
        {"name": "p4de", "size": "p4de.24xlarge", "mig": {"layout": layout}},
        gpuSoftware={"migStrategy": strategy},
    )


def _only_problem(raw: dict):
    with pytest.raises(ConfigError) as caught:
        load_stack(raw)
    (problem,) = caught.value.problems
    assert "\n" not in problem.message
    return problem


def test_a_mixed_node_resolves_to_its_groups_in_order():
    (pool,) = load_stack(_p4de(MIXED_NODE)).pools
    assert pool.mig is not None and pool.mig.custom and pool.mig.layout_name == "gpupools-p4de"
    groups = [(group.gpus, group.devices, group.whole) for group in pool.mig.node.groups]
    assert groups == [(6, {"1g.10gb": 4, "1g.20gb": 1, "2g.20gb": 1}, False), (2, {}, True)]
    assert pool.labels["nvidia.com/mig.config"] == "gpupools-p4de"


def test_one_entry_over_every_gpu_is_the_uniform_layout_nvidia_names():
    (pool,) = load_stack(_p4de([{"gpus": 8, "mix": {"1g.10gb": 7}}])).pools
    assert pool.mig is not None and pool.mig.layout_name == "all-1g.10gb" and not pool.mig.custom
    assert pool.mig.devices == {"1g.10gb": 7}


def test_entries_must_add_up_to_the_sizes_gpus():
    problem = _only_problem(_p4de(MIXED_NODE[:1]))
    assert problem.field == LAYOUT
    assert "add up to 6" in problem.message and "has 8 GPUs" in problem.message and "allowed" in problem.message


def test_too_many_gpus_are_refused_too():
    problem = _only_problem(_p4de([*MIXED_NODE, {"gpus": 1, "whole": True}]))
    assert problem.field == LAYOUT and "add up to 9" in problem.message


def test_every_gpu_whole_is_no_mig_layout():
    problem = _only_problem(_p4de([{"gpus": 8, "whole": True}]))
    assert problem.field == LAYOUT and "whole" in problem.message and "allowed" in problem.message


def test_each_mix_goes_through_the_one_layout_rule():
    messages = messages_at(
        _p4de([{"gpus": 7, "mix": {"7g.80gb": 1}}, {"gpus": 1, "mix": {"4g.40gb": 2}}]), LAYOUT + "[1].mix"
    )
    assert any("4g.40gb" in message and "p4de.24xlarge" in message for message in messages)


def test_single_strategy_cannot_advertise_whole_gpus_beside_mig_devices():
    layout = [{"gpus": 6, "mix": {"1g.10gb": 7}}, {"gpus": 2, "whole": True}]
    problem = _only_problem(_p4de(layout, "single"))
    assert problem.field == LAYOUT and "whole" in problem.message and "migStrategy mixed" in problem.message


def test_single_strategy_cannot_advertise_two_mixes_of_one_profile_each():
    layout = [{"gpus": 4, "mix": {"1g.10gb": 7}}, {"gpus": 4, "mix": {"3g.40gb": 2}}]
    problem = _only_problem(_p4de(layout, "single"))
    assert problem.field == LAYOUT and "mixes profiles" in problem.message


def test_single_strategy_takes_the_same_single_profile_split_into_entries():
    layout = [{"gpus": 4, "mix": {"1g.10gb": 7}}, {"gpus": 4, "mix": {"1g.10gb": 7}}]
    (pool,) = load_stack(_p4de(layout, "single")).pools
    assert pool.mig is not None and pool.mig.node.mig_devices == {"1g.10gb": 56}


def test_aks_own_profile_stays_one_profile_per_pool():
    raw = config(AZURE, {"mig": {"layout": [{"gpus": 7, "mix": {"1g.5gb": 7}}, {"gpus": 1, "whole": True}]}})
    problem = _only_problem(raw)
    assert problem.field == LAYOUT and "one MIG profile per pool" in problem.message
    assert "gpu-operator" in problem.message and "1x whole" in problem.message


def test_aks_with_the_operators_mig_manager_takes_a_per_gpu_layout():
    software = {"installer": "gpu-operator", "version": "v26.7.0", "driver": "operator", "migStrategy": "mixed"}
    layout = [{"gpus": 4, "mix": {"1g.5gb": 7}}, {"gpus": 4, "whole": True}]
    (pool,) = load_stack(config(AZURE, {"mig": {"layout": layout}}, gpuSoftware=software)).pools
    assert pool.mig is not None and pool.mig.applied_by == "operator" and pool.mig.aks_profile is None
    assert pool.mig.node.mig_devices == {"1g.5gb": 4 * 7} and pool.mig.node.whole_gpus == 4


@pytest.mark.parametrize(
    ("layout", "field", "words"),
    [
        ([{"gpus": 6}], LAYOUT + "[0]", "exactly one of 'mix'"),
        ([{"gpus": 6, "mix": {"1g.10gb": 7}, "whole": True}], LAYOUT + "[0]", "exactly one of 'mix'"),
        ([{"gpus": 0, "whole": True}], LAYOUT + "[0].gpus", "greater than or equal to 1"),
        ([{"gpus": 2, "whole": False}], LAYOUT + "[0].whole", "only true"),
        ([{"gpus": 2, "mix": {"1g.10gb": 0}}], LAYOUT + "[0].mix", "at least 1"),
        ([], LAYOUT, "at least one entry"),
        ([{"gpus": 1, "whole": True}] * 17, LAYOUT, "at most 16 entries, got 17"),
        (5, LAYOUT, "valid string or"),
        ([{"gpus": 2, "mixx": {"1g.10gb": 1}}], LAYOUT + "[0].mixx", "unknown key"),
    ],
)
def test_shape_refusals_are_one_line_at_the_field(layout, field, words):
    problem = _only_problem(_p4de(layout))
    assert problem.field == field and words in problem.message, problem
