"""The plan's clock and the Kubernetes support windows, against the dates the sources print (research of
2026-11-26: aks-docs supported-kubernetes-versions.md, endoflife.date amazon-eks.md)."""

from __future__ import annotations

from datetime import date

import pytest

from gpupools.catalog.clock import ClockError, plan_date
from gpupools.catalog.kubernetes_versions import AKS_MINORS, EKS_MINORS, default_minor, upgrade_targets

ON = date(2026, 11, 26)


def test_source_date_epoch_is_the_plan_date():
    assert plan_date({"SOURCE_DATE_EPOCH": "1795564800"}).day == date(2026, 11, 25)
    assert plan_date({"SOURCE_DATE_EPOCH": "1795651199"}).day == date(2026, 11, 25)  # the day's last second, UTC
    assert plan_date({"SOURCE_DATE_EPOCH": "1795564800"}).source == "SOURCE_DATE_EPOCH"


def test_unset_or_empty_is_today_utc():
    assert plan_date({}).source == plan_date({"SOURCE_DATE_EPOCH": ""}).source == "today (UTC)"


@pytest.mark.parametrize("value", ["abc", "-1", "1.5", " 1795564800", "１７９５", "9" * 13, "253402300800", "1e9"])
def test_malformed_epochs_are_refused(value):
    with pytest.raises(ClockError, match="SOURCE_DATE_EPOCH") as caught:
        plan_date({"SOURCE_DATE_EPOCH": value})
    assert "\n" not in str(caught.value) and str(caught.value).isascii()


def _by_status(minors, day):
    found: dict[str, list[str]] = {}
    for window in minors.values():
        found.setdefault(window.status(day), []).append(window.minor)
    return found


def test_aks_on_the_research_day():
    # research: "AKS on 2026-11-26: standard 1.34 (ends 2026-11-30), 1.35, 1.36; LTS-only 1.31, 1.32, 1.33;
    # 1.29/1.30 ended"
    assert _by_status(AKS_MINORS, ON) == {
        "ended": ["1.29", "1.30"],
        "long-term": ["1.31", "1.32", "1.33"],
        "standard": ["1.34", "1.35", "1.36"],
        "expected": ["1.37"],  # the calendar plans GA for October 2026; no release note in the sources says so
    }
    assert AKS_MINORS["1.34"].ends_soon(ON) == date(2026, 11, 30)
    assert AKS_MINORS["1.31"].ends_soon(ON) == date(2026, 11, 30)


def test_eks_on_the_research_day():
    # "EKS: standard 1.34 (ends 2026-12-02), 1.35, 1.36; extended 1.31 (last day 2026-11-26), 1.32, 1.33"
    assert _by_status(EKS_MINORS, ON) == {
        "ended": ["1.29", "1.30"],
        "long-term": ["1.31", "1.32", "1.33"],
        "standard": ["1.34", "1.35", "1.36"],
    }
    assert _by_status(EKS_MINORS, date(2026, 11, 27))["ended"] == ["1.29", "1.30", "1.31"]


def test_the_default_is_in_standard_support_and_moves_with_the_date():
    for minors in (AKS_MINORS, EKS_MINORS):
        assert default_minor(minors, ON) == "1.35"
        assert minors[default_minor(minors, ON)].status(ON) == "standard"
    assert default_minor(EKS_MINORS, date(2027, 5, 1)) == "1.36"  # 1.35 left standard support on 2027-03-27
    assert default_minor(AKS_MINORS, date(2028, 6, 1)) is None  # nothing in the table is in standard support


def test_a_ga_only_a_calendar_schedules_is_expected_and_never_a_default():
    assert AKS_MINORS["1.37"].ga is None and AKS_MINORS["1.37"].ga_planned == date(2026, 10, 31)
    assert AKS_MINORS["1.37"].status(date(2026, 9, 1)) == "expected"  # before the planned month: still a plan
    assert AKS_MINORS["1.37"].status(date(2028, 11, 1)) == "ended"
    assert default_minor(AKS_MINORS, ON) == "1.35"


def test_upgrade_targets_have_60_days_of_standard_support_left():
    # EKS 1.34's standard support ends 2026-12-02: 7 days after 2026-11-25, so it is no target
    assert upgrade_targets(EKS_MINORS, date(2026, 11, 25)) == ["1.35", "1.36"]
    assert upgrade_targets(AKS_MINORS, date(2026, 11, 25)) == ["1.35", "1.36"]  # AKS 1.34 ends 2026-11-30
    assert upgrade_targets(EKS_MINORS, date(2026, 9, 1)) == ["1.34", "1.35", "1.36"]  # 92 days left then
