"""A validated stack's pools as flavors: the figures a p4d.24xlarge all-balanced pool publishes (8x A100 40GB, each
2x 1g.5gb + 1x 2g.10gb + 1x 3g.20gb: NVIDIA's all-balanced layout), its node selector and its taint."""

from __future__ import annotations

import pytest

from gpupools.kueue import KueueError, TeamDemand, kueue_objects, pool_flavor
from gpupools.resolve import load_stack
from support import kueue_check
from support.base_configs import PINNED_AWS, config
from support.dra_stacks import P4D_BALANCED, pulumi_config


def test_an_operator_pool_offers_its_layout_on_its_nodes_once_cut():
    stack = load_stack(config(PINNED_AWS, {"count": 2}))
    flavor = pool_flavor(stack.pools[0])
    # 2 nodes x 8 GPUs x (2, 1, 1).
    assert flavor.capacity == {"nvidia.com/mig-1g.5gb": 32, "nvidia.com/mig-2g.10gb": 16, "nvidia.com/mig-3g.20gb": 16}
    # The operator's MIG manager cuts the GPUs: pods wait for its success label, as gpupools' own workloads do.
    assert flavor.node_labels == {"gpupools.io/pool": "p4d", "nvidia.com/mig.config.state": "success"}
    objects = kueue_objects([flavor], [TeamDemand("chat", {"nvidia.com/mig-1g.5gb": 20})])
    assert not [p for o in objects for p in kueue_check.problems(o)]
    assert objects[0]["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_a_dra_pool_is_refused():
    stack = load_stack(pulumi_config(P4D_BALANCED))
    with pytest.raises(KueueError, match="served by the DRA driver"):
        pool_flavor(stack.pools[0])
