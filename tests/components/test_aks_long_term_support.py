"""AKS LTS on the ManagedCluster: ``long_term_support`` registers the Premium tier and the AKSLongTermSupport plan,
as azure-native 3.29.0 serialises them (``sku: {name: Base, tier: Premium}``, ``supportPlan``); without it neither
input is sent (the service defaults: Free tier, KubernetesOfficial)."""

from __future__ import annotations

import pulumi

from support.resources import one as _one, run_mocked as _run

ARGS = {"name": "gpu-dev", "resource_group_name": "gpu-dev-rg", "location": "southcentralus"}


def _managed_cluster(**extra):
    from gpupools.azure import AksCluster

    def program():
        AksCluster("gpu-dev", {**ARGS, **extra})
        pulumi.export("done", True)

    return _one(_run(program), "azure-native:containerservice:ManagedCluster")


def test_long_term_support_sets_the_premium_tier_and_the_lts_plan():
    managed = _managed_cluster(kubernetes_version="1.33", long_term_support=True)
    assert managed.inputs["sku"] == {"name": "Base", "tier": "Premium"}
    assert managed.inputs["supportPlan"] == "AKSLongTermSupport"
    assert managed.inputs["kubernetesVersion"] == "1.33"


def test_without_it_neither_input_is_sent():
    managed = _managed_cluster(kubernetes_version="1.35")
    assert "sku" not in managed.inputs and "supportPlan" not in managed.inputs


def test_a_created_cluster_past_community_support_without_it_is_refused_like_check_refuses_it():
    import pytest

    from gpupools.component_args.fields import ComponentArgsError

    with pytest.raises(ComponentArgsError, match="long_term_support: true") as caught:
        _managed_cluster(kubernetes_version="1.33")
    assert "(1.35, 1.36: in standard support for 60 days or more)" in str(caught.value)
