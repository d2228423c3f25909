"""A Kubernetes version the cloud offers on the plan's date: one rule for the config's ``cluster.kubernetesVersion``
and the components' ``kubernetes_version`` (table, dates and sources: ``catalog/kubernetes_versions.py``,
``docs/sources.md``). The date is handed in (``catalog/clock.py`` is read once, by the caller).

- past the end of all support (AKS LTS, EKS extended): refused; not generally available yet: refused;
- AKS past community support but within LTS: a created cluster needs ``cluster.longTermSupport: true`` (Premium
  tier + AKSLongTermSupport, aks-docs long-term-support.md), an existing one gets a warning;
- EKS in extended support, or any end within 60 days: a warning.
"""

from __future__ import annotations

import re
from datetime import date

from ..catalog.cloud import KubernetesOffer
from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.cloud_registry import default_kubernetes_version
from ..catalog.kubernetes_versions import (
    ENDED,
    ENDS_SOON_DAYS,
    EXPECTED,
    LONG_TERM,
    NOT_YET,
    STANDARD,
    KubernetesWindow,
    upgrade_targets,
)
from ..config.errors import Findings, Problem, field_path
from ..config.models import StackConfig
from .place_rules import cluster_region

# ASCII digits only (``\d`` would take fullwidth and Arabic-Indic ones); a node pool may name a patch.
_VERSION = re.compile(r"(?P<minor>1\.[0-9]{2})(\.[0-9]{1,3})?")


def offered_on(offer: KubernetesOffer, day: date, long_term: bool = True) -> list[str]:
    """The minors ``offer`` lets this cluster use on ``day``: standard support, expected ones (marked), and
    long-term support where ``long_term`` (chosen, or needing no opt-in)."""
    usable = (STANDARD, LONG_TERM, EXPECTED) if long_term or not offer.long_term_opt_in else (STANDARD, EXPECTED)
    return [
        f"{w.minor} (expected)" if w.status(day) == EXPECTED else w.minor
        for w in offer.minors.values()
        if w.status(day) in usable
    ]


def kubernetes_version_problem(
    cloud: str, version: str, day: date, patch: bool = False, long_term: bool = True
) -> str | None:
    """Why ``version`` (``1.33``, or ``1.33.2`` where ``patch``) is not a minor ``cloud`` offers on ``day``, or None.
    ``long_term``: whether LTS-only minors are this cluster's to choose (listed as allowed)."""
    offer = cloud_named(cloud).facet(KubernetesOffer)
    offered = offered_on(offer, day, long_term)
    allowed = f"allowed on {day.isoformat()}: {', '.join(offered)}" + (
        " (or with a patch, e.g. 1.35.2)" if patch else ""
    )
    if version == "":
        return (
            f"has no default: no Kubernetes minor in {offer.service} standard support on {day.isoformat()} in "
            f"gpupools' table (catalog/kubernetes_versions.py); set it, or update gpupools; {allowed}"
        )
    match = _VERSION.fullmatch(version)
    if match is None or (match.group(2) and not patch):
        return f"{version[:40]!r} is not a Kubernetes minor version such as 1.35; {allowed}"
    window = offer.minors.get(match["minor"])
    if window is None:
        return f"{match['minor']} is not a Kubernetes version {offer.service} offers; {allowed}"
    status = window.status(day)
    if status == ENDED:
        return (
            f"{window.minor} reached the end of all {offer.service} support ({offer.long_term}) on "
            f"{window.end.isoformat()}, before the plan's date {day.isoformat()}; {offer.service} refuses it; {allowed}"
        )
    if status == NOT_YET:
        return f"{window.minor} is not generally available on {offer.service} on {day.isoformat()}; {allowed}"
    return None


def expected_warning(offer: KubernetesOffer, window: KubernetesWindow, day: date, region: str | None) -> str:
    """The advice for a minor whose GA only a calendar schedules: what we know, and how to confirm it."""
    planned = window.ga_planned.strftime("%B %Y") if window.ga_planned else "a later date"
    when = "before" if window.ga_planned and window.ga_planned <= day else "after"
    command = offer.confirm_command.format(region=region or "<region>")
    return (
        f"cluster.kubernetesVersion {window.minor}: expected, not confirmed: {offer.service}'s release calendar "
        f"schedules its GA for {planned} ({when} the plan's date {day.isoformat()}), and no release note in "
        f"gpupools' table confirms it; confirm that {offer.service} offers it with `{command}`"
    )


def kubernetes_window_findings(config: StackConfig, day: date) -> Findings:
    """The cluster's minor against its window on ``day``: refusals with both ways out, and end-of-support advice."""
    cluster = config.cluster
    if cluster is None:
        return Findings()
    offer = cloud_named(config.cloud).facet(KubernetesOffer)
    path = field_path("cluster", "kubernetesVersion")
    # "" where the config was built without its default (a partial config): the same default, from the same day.
    version = cluster.kubernetes_version or default_kubernetes_version(config.cloud, day) or ""
    long_term = bool(cluster.long_term_support) or not cluster.create
    why = kubernetes_version_problem(config.cloud, version, day, long_term=long_term)
    found = Findings([Problem(path, why)] if why else [])
    if cluster.long_term_support and not offer.long_term_opt_in:
        found.problems.append(
            Problem(
                field_path("cluster", "longTermSupport"),
                f"is for clouds whose long-term support is opt-in (AKS LTS); {offer.service} moves a cluster to "
                f"{offer.long_term} by itself",
            )
        )
    if why:
        return found
    window = offer.minors[version]
    if window.status(day) == EXPECTED:
        found.warnings.append(expected_warning(offer, window, day, cluster_region(config)))
    if window.status(day) == LONG_TERM:
        found += _long_term(config, offer, window, day)
    elif cluster.long_term_support and offer.long_term_opt_in:
        found.warnings.append(
            f"cluster.longTermSupport: {window.minor} is in {offer.service} standard support on {day.isoformat()}; "
            f"the Premium tier and the {offer.long_term} plan are billed from now on"
        )
    soon = window.ends_soon(day)
    if soon is not None:
        what = "standard support" if soon == window.standard_end else f"all support ({offer.long_term})"
        found.warnings.append(
            f"cluster.kubernetesVersion {window.minor}: {offer.service} {what} ends on {soon.isoformat()}, within "
            f"{ENDS_SOON_DAYS} days of the plan's date {day.isoformat()}; plan an upgrade "
            f"({_targets(offer, day)})"
        )
    return found


def long_term_support_problem(cloud: str, version: str, day: date) -> str | None:
    """Why a created cluster on ``version`` needs the cloud's opt-in long-term support on ``day`` (AKS LTS), or
    None; the same words for ``cluster.kubernetesVersion`` and ``AksCluster``'s ``kubernetes_version``."""
    offer = cloud_named(cloud).facet(KubernetesOffer)
    window = offer.minors.get(version)
    if not offer.long_term_opt_in or window is None or window.status(day) != LONG_TERM:
        return None
    return (
        f"{_past(offer, window)}; {offer.long_term_note}. Either choose a minor in standard support "
        f"({_targets(offer, day)}), or set cluster.longTermSupport: true (Premium tier and "
        "AKSLongTermSupport, billed per cluster-hour)"
    )


def _past(offer: KubernetesOffer, window: KubernetesWindow) -> str:
    return (
        f"{window.minor} is past {offer.service} standard support (ended {window.standard_end.isoformat()}) and in "
        f"{offer.long_term} only until {window.end.isoformat()}"
    )


def _targets(offer: KubernetesOffer, day: date) -> str:
    """The upgrade targets in words: minors in standard support with 60 days or more of it left."""
    targets = upgrade_targets(dict(offer.minors), day)
    if not targets:
        return f"none in standard support with {ENDS_SOON_DAYS} days or more left in gpupools' table"
    return f"{', '.join(targets)}: in standard support for {ENDS_SOON_DAYS} days or more"


def _long_term(config: StackConfig, offer: KubernetesOffer, window: KubernetesWindow, day: date) -> Findings:
    cluster = config.cluster
    standard = _targets(offer, day)
    past = _past(offer, window)
    if not offer.long_term_opt_in:
        return Findings(warnings=[f"cluster.kubernetesVersion: {past}; {offer.long_term_note}"])
    if not cluster.create:
        return Findings(
            warnings=[
                f"cluster.kubernetesVersion: {past}; the existing cluster must be on the Premium tier with the "
                f"AKSLongTermSupport plan (az aks update --tier premium --k8s-support-plan AKSLongTermSupport), "
                f"or be upgraded to a minor in standard support ({standard})"
            ]
        )
    if cluster.long_term_support:
        return Findings(
            warnings=[f"cluster.kubernetesVersion: {past}; runs on the Premium tier with the AKSLongTermSupport plan"]
        )
    why = long_term_support_problem(config.cloud, window.minor, day) or past
    return Findings([Problem(field_path("cluster", "kubernetesVersion"), why)])
