"""One node's MIG layout (``domain.node_layout``): what a node of groups advertises and publishes, counted here
instance by instance from the groups, and where each GPU's instances start."""

from __future__ import annotations

from collections import Counter

import pytest

from gpupools.domain.node_layout import GpuGroup, NodeLayout

MIX = {"1g.10gb": 4, "1g.20gb": 1, "2g.20gb": 1}
P4DE_NODE = NodeLayout((GpuGroup(6, (("1g.10gb", 4), ("1g.20gb", 1), ("2g.20gb", 1))), GpuGroup(2)))


def _instances(gpus: list[dict[str, int] | None]) -> Counter:
    """An independent count: one GPU at a time, one instance at a time."""
    counted: Counter = Counter()
    for mix in gpus:
        if mix is None:
            counted["whole"] += 1
            continue
        for profile, count in mix.items():
            for _ in range(count):
                counted[profile] += 1
    return counted


def test_mixed_node_advertises_each_profile_and_its_whole_gpus_under_mixed():
    counted = _instances([MIX] * 6 + [None] * 2)
    assert counted == {"1g.10gb": 24, "1g.20gb": 6, "2g.20gb": 6, "whole": 2}
    assert P4DE_NODE.advertised("mixed") == {
        "nvidia.com/mig-1g.10gb": counted["1g.10gb"],
        "nvidia.com/mig-1g.20gb": counted["1g.20gb"],
        "nvidia.com/mig-2g.20gb": counted["2g.20gb"],
        "nvidia.com/gpu": counted["whole"],
    }


def test_none_shows_every_gpu_whole_and_single_counts_every_device_as_a_gpu():
    assert P4DE_NODE.advertised("none") == {"nvidia.com/gpu": 8}
    assert P4DE_NODE.advertised("single") == {"nvidia.com/gpu": 6 * 6 + 2}


def test_a_mixed_node_needs_mixed_and_a_uniform_one_does_not():
    assert P4DE_NODE.needs_mixed and not P4DE_NODE.is_uniform
    uniform = NodeLayout.uniform(8, {"1g.10gb": 7})
    assert uniform.is_uniform and not uniform.needs_mixed and uniform.per_gpu == {"1g.10gb": 7}
    split = NodeLayout((GpuGroup(4, (("1g.10gb", 7),)), GpuGroup(4, (("1g.10gb", 7),))))
    assert not split.needs_mixed and split.advertised("single") == {"nvidia.com/gpu": 56}
    with pytest.raises(ValueError):
        P4DE_NODE.per_gpu  # noqa: B018 - a non-uniform node has no one per-GPU mix


def test_device_kinds_list_whole_gpus_as_none():
    assert P4DE_NODE.device_kinds() == {"1g.10gb": 24, "1g.20gb": 6, "2g.20gb": 6, None: 2}
    assert P4DE_NODE.most_per_gpu("1g.10gb") == 4 and P4DE_NODE.most_per_gpu("3g.40gb") == 0


def test_groups_take_consecutive_device_indexes():
    assert [(indexes, group.whole) for indexes, group in P4DE_NODE.indexed()] == [
        ((0, 1, 2, 3, 4, 5), False),
        ((6, 7), True),
    ]


def test_of_builds_the_same_node_from_pairs_in_any_mix_order():
    built = NodeLayout.of([(6, {"2g.20gb": 1, "1g.20gb": 1, "1g.10gb": 4}), (2, None)])
    assert built == P4DE_NODE and built.to_json() == [{"gpus": 6, "mix": MIX}, {"gpus": 2, "whole": True}]
