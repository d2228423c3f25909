"""Rules that depend on the plan's date and the place: Kubernetes windows, AKS LTS, regions and offers."""

from __future__ import annotations

import copy
from datetime import date

import pytest

from gpupools.catalog import offers
from gpupools.catalog.clock import PlanDate
from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack

NOV_25 = PlanDate(date(2026, 11, 25), "test")
IN_2028 = PlanDate(date(2028, 6, 1), "test")
AKS = {
    "gpupools:cloud": "azure",
    "gpupools:cluster": {
        "name": "gpu-dev",
        "resourceGroup": "gpu-dev-rg",
        "location": "southcentralus",
        "systemPool": {"size": "Standard_D4s_v5"},
    },
    "gpupools:gpuPools": [{"name": "whole", "size": "Standard_NC24ads_A100_v4", "count": 1}],
    "gpupools:gpuSoftware": {"installer": "device-plugin", "driver": "preinstalled"},
}
EKS = {
    "gpupools:cloud": "aws",
    "gpupools:cluster": {"name": "gpu-eks", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
    "gpupools:gpuPools": [{"name": "p4d", "size": "p4d.24xlarge", "count": 1}],
    "gpupools:gpuSoftware": {"installer": "gpu-operator", "version": "v26.7.0"},
}


def _with(base, **cluster):
    raw = copy.deepcopy(base)
    raw["gpupools:cluster"].update(cluster)
    return raw


def _refusals(raw, on=NOV_25) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_stack(raw, on)
    return [str(problem) for problem in caught.value.problems]


@pytest.mark.parametrize("base", [AKS, EKS], ids=["aks", "eks"])
def test_a_minor_past_all_support_is_refused(base):
    (why,) = _refusals(_with(base, kubernetesVersion="1.29"))
    assert "kubernetesVersion" in why and "end of all" in why and "2026-11-25" in why


@pytest.mark.parametrize("base", [AKS, EKS], ids=["aks", "eks"])
def test_the_default_minor_is_in_standard_support(base):
    stack = load_stack(base, NOV_25)
    assert stack.config.cluster.kubernetes_version == "1.35"
    assert stack.on == NOV_25


def test_the_same_stack_in_2028_is_refused():
    (why,) = _refusals(_with(AKS, kubernetesVersion="1.35"), IN_2028)
    # 1.36 is LTS-only then (community support ended 2027-06-30): allowed only to a stack that chose LTS
    assert "2028-03-31" in why and why.endswith("allowed on 2028-06-01: 1.37 (expected)")
    (why,) = _refusals(AKS, IN_2028)  # and its default: nothing in standard support that day
    assert "has no default" in why


def test_an_end_within_60_days_is_a_warning():
    stack = load_stack(_with(EKS, kubernetesVersion="1.34"), NOV_25)
    assert any("2026-12-02" in w and "within 60 days" in w for w in stack.warnings)


def test_aks_lts_only_minor_is_refused_with_both_ways_out():
    (why,) = _refusals(_with(AKS, kubernetesVersion="1.33"))
    assert "LTS only until 2027-07-31" in why
    # 1.34 is in standard support, but only until 2026-11-30: no minor worth moving to
    assert "(1.35, 1.36: in standard support for 60 days or more)" in why and "cluster.longTermSupport: true" in why


def test_aks_lts_only_minor_with_long_term_support_plans_with_a_warning():
    stack = load_stack(_with(AKS, kubernetesVersion="1.33", longTermSupport=True), NOV_25)
    assert any("Premium tier" in w for w in stack.warnings)


def test_an_existing_aks_cluster_on_an_lts_only_minor_gets_a_warning():
    raw = _with(AKS, kubernetesVersion="1.32", create=False)
    del raw["gpupools:cluster"]["systemPool"]
    stack = load_stack(raw, NOV_25)
    assert any("existing cluster" in w and "AKSLongTermSupport" in w for w in stack.warnings)


def test_long_term_support_is_refused_on_eks():
    (why,) = _refusals(_with(EKS, longTermSupport=True))
    assert why.startswith("gpupools:cluster.longTermSupport") and "extended support" in why


def test_eks_extended_support_is_a_warning():
    stack = load_stack(_with(EKS, kubernetesVersion="1.32"), NOV_25)
    assert any("extended support only until 2027-03-23" in w for w in stack.warnings)


@pytest.mark.parametrize(
    ("base", "key", "typo", "meant"),
    [
        (EKS, "region", "us-wst-2", "us-west-2"),
        (AKS, "location", "southcentrlus", "southcentralus"),
        (AKS, "location", "eastu", "eastus"),
    ],
)
def test_a_misspelt_region_is_refused_with_did_you_mean(base, key, typo, meant):
    (why,) = _refusals(_with(base, **{key: typo}))
    assert f"cluster.{key}" in why and f"'{typo}'" in why and f"did you mean '{meant}'" in why


def test_region_text_no_cloud_uses_is_refused_escaped_and_cut():
    refusals = _refusals(_with(EKS, region="us-east-1\u202e" + "x" * 300))
    assert refusals and all(len(line) < 600 and "\u202e" not in line for line in refusals)


def test_a_size_not_sold_in_the_region_is_refused_naming_regions_that_sell_it():
    # within 90 days of the AWS list's data (2026-01-21) a missing size is refused
    (why,) = _refusals(_with(EKS, region="af-south-1"), PlanDate(date(2026, 4, 1), "test"))
    assert "gpuPools[0].size" in why and "'p4d.24xlarge' is not offered in af-south-1" in why
    assert "ap-south-1" in why  # p4d is sold in ap-south-1 (tsaol-aws-gpu, 2026-01-21)


def test_a_region_the_snapshot_does_not_cover_is_not_checked():
    stack = load_stack(_with(AKS, location="westeurope"), NOV_25)
    assert any("not checked" in w and "westeurope" in w for w in stack.warnings)


def test_a_missing_snapshot_checks_nothing_and_refuses_nothing(monkeypatch):
    monkeypatch.setattr(offers, "offers_snapshot", lambda: None)
    stack = load_stack(_with(EKS, region="af-south-1"), NOV_25)
    assert any("not checked" in w and "missing or unreadable" in w for w in stack.warnings)


def test_a_sold_size_in_a_covered_region_passes_without_a_note():
    stack = load_stack(EKS, NOV_25)
    assert not any("offers snapshot" in w for w in stack.warnings)


WITH_P5_IN_FRANKFURT = {
    **copy.deepcopy(EKS),
    "aws:region": "eu-central-1",
    "gpupools:gpuPools": [{"name": "p5", "size": "p5.48xlarge", "count": 1}],
}
WITH_P5_IN_FRANKFURT["gpupools:cluster"]["region"] = "eu-central-1"


def test_an_offers_list_older_than_90_days_only_warns():
    """p5.48xlarge in eu-central-1 is missing from the AWS list of 2026-01-21: refused in April, a warning in
    November (a size launched since then is missing from it)."""
    on_nov_25 = load_stack(WITH_P5_IN_FRANKFURT, NOV_25)
    (warning,) = [w for w in on_nov_25.warnings if "offers snapshot" in w]
    assert warning.startswith("gpuPools[0].size: p5.48xlarge is not listed in region eu-central-1")
    assert "data of 2026-01-21, over 90 days before 2026-11-25" in warning and "not refused" in warning
    (why,) = _refusals(WITH_P5_IN_FRANKFURT, PlanDate(date(2026, 4, 21), "test"))  # day 90 of the data
    assert why.startswith("gpupools:gpuPools[0].size: 'p5.48xlarge' is not offered in eu-central-1")


def test_aks_137_is_expected_with_a_warning_naming_how_to_confirm():
    stack = load_stack(_with(AKS, kubernetesVersion="1.37"), NOV_25)
    assert stack.config.cluster.kubernetes_version == "1.37"
    (warning,) = [w for w in stack.warnings if "1.37" in w]
    assert warning == (
        "cluster.kubernetesVersion 1.37: expected, not confirmed: AKS's release calendar schedules its GA for "
        "October 2026 (before the plan's date 2026-11-25), and no release note in gpupools' table "
        "confirms it; confirm that AKS offers it with `az aks get-versions --location southcentralus`"
    )


def test_ends_soon_suggests_only_minors_with_60_days_left():
    stack = load_stack(_with(EKS, kubernetesVersion="1.31"), NOV_25)  # extended support ends 2026-11-26
    (soon,) = [w for w in stack.warnings if "within 60 days" in w]
    assert soon.endswith("plan an upgrade (1.35, 1.36: in standard support for 60 days or more)")
    assert "1.34" not in soon  # its standard support ends 2026-12-02, a week after the plan's date


def test_allowed_lists_lts_only_minors_only_where_lts_is_chosen():
    (why,) = _refusals(_with(AKS, kubernetesVersion="1.29"))
    assert why.endswith("allowed on 2026-11-25: 1.34, 1.35, 1.36, 1.37 (expected)")
    (why,) = _refusals(_with(AKS, kubernetesVersion="1.29", longTermSupport=True))
    assert why.endswith("allowed on 2026-11-25: 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37 (expected)")
    (why,) = _refusals(_with(EKS, kubernetesVersion="1.29"))  # EKS extended support needs no opt-in
    assert why.endswith("allowed on 2026-11-25: 1.31, 1.32, 1.33, 1.34, 1.35, 1.36")


@pytest.mark.parametrize(("base", "typo"), [(EKS, "useast1"), (EKS, "us-east-1a"), (AKS, "south-central-us")])
def test_a_typod_region_gets_one_error(base, typo):
    key = "region" if base is EKS else "location"
    (why,) = _refusals(_with(base, **{key: typo}))
    assert f"cluster.{key}: '{typo}' is not in" in why and "did you mean" in why


@pytest.mark.parametrize(
    ("base", "key", "value"), [(AKS, "azure-native:location", "eastus"), (EKS, "aws:region", "us-west-2")]
)
def test_the_providers_region_must_be_the_clusters(base, key, value):
    raw = {**copy.deepcopy(base), key: value}
    (why,) = _refusals(raw)
    assert why.startswith(f"{key}: '{value}' is not the cluster's ")
    region = base["gpupools:cluster"].get("location") or base["gpupools:cluster"]["region"]
    assert f"allowed: {region} (the same as gpupools:cluster." in why
    assert load_stack({**copy.deepcopy(base), key: region}, NOV_25)  # the same region passes


def test_a_typo_in_the_clusters_region_is_one_error_not_a_second_on_the_providers_key():
    raw = {**_with(EKS, region="us-est-1"), "aws:region": "us-east-1"}
    (why,) = _refusals(raw)
    assert why.startswith("gpupools:cluster.region: 'us-est-1' is not in AWS's list of regions")
