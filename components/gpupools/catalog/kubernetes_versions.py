"""The Kubernetes minors each cloud offers, with the dates their support starts and ends.

Every rule compares these dates with the plan's date (``catalog/clock.py``), never with a fixed list: a minor past
the end of all support is refused, one whose end is within ``ENDS_SOON_DAYS`` is a warning, and the default minor
is one in standard support on that date. A version is usable through its end date. How sure each date is: a GA day
read from a release note is a fact (``ga``); a GA month read only from a release calendar is a plan (``ga_planned``),
so a minor with only that is ``expected``: usable, with a warning naming how to confirm it, never refused.
Sources (``docs/sources.md``):

- AKS ends: MicrosoftDocs/azure-aks-docs ``articles/aks/supported-kubernetes-versions.md`` @ f988e7e8b023
  (2026-08-05), "AKS Kubernetes release calendar" (End of life = end of community support) and "LTS versions"
  (LTS End of life). "Unless an explicit date is provided, the End of Life (EOL) date is the last day of the
  specified month": month-only rows are that month's last day (``exact=False``).
- AKS GA days: endoflife-date/endoflife.date ``products/azure-kubernetes-service.md`` @ c1b458e81970 (2026-07-03),
  ``releaseDate``, each from the Azure/AKS release note of that day.
- EKS: endoflife-date/endoflife.date ``products/amazon-eks.md`` @ de1074dab973 (2026-07-08), auto-updated from the
  EKS user guide's release calendar (releaseDate, eol = end of standard support, eoes = end of extended support);
  1.29-1.31 confirmed by awsdocs/amazon-eks-user-guide ``latest/ug/clusters/kubernetes-versions.adoc`` @ 4d52b4d05e34.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

READ_ON = date(2026, 11, 26)  # the day these rows were read from the sources above
ENDS_SOON_DAYS = 60  # an end this close to the plan's date is a warning

AKS_DOCS = "MicrosoftDocs/azure-aks-docs articles/aks/supported-kubernetes-versions.md @ f988e7e8b023 (2026-08-05)"
EOL_AKS = "endoflife-date/endoflife.date products/azure-kubernetes-service.md @ c1b458e81970 (2026-07-03)"
EOL_EKS = "endoflife-date/endoflife.date products/amazon-eks.md @ de1074dab973 (2026-07-08)"

STANDARD, LONG_TERM, ENDED, NOT_YET = "standard", "long-term", "ended", "not yet offered"
EXPECTED = "expected"  # GA only scheduled by a calendar, not confirmed by a release note in the sources read


@dataclass(frozen=True)
class KubernetesWindow:
    """One minor on one cloud: GA, end of standard (AKS: community) support, end of all support (AKS LTS, EKS
    extended). ``ga`` is None for a minor no release note in the sources read announced as generally available;
    ``ga_planned`` is then the calendar's planned GA (the last day of its month), if it has one."""

    minor: str
    ga: date | None
    standard_end: date
    end: date
    source: str
    exact: bool = True  # False: the source gave only a month (its last day is used)
    ga_planned: date | None = None

    def status(self, day: date) -> str:
        """``standard``, ``long-term`` (AKS LTS, EKS extended), ``ended``, ``expected`` (GA only planned, by a
        calendar: the cloud's own list must confirm it) or ``not yet offered`` on ``day``."""
        if self.ga is None:
            if self.ga_planned is None:
                return NOT_YET
            return EXPECTED if day <= self.end else ENDED
        if day < self.ga:
            return NOT_YET
        if day <= self.standard_end:
            return STANDARD
        return LONG_TERM if day <= self.end else ENDED

    def ends_soon(self, day: date) -> date | None:
        """The end (standard or all support) within ``ENDS_SOON_DAYS`` of ``day``, or None."""
        for end in (self.standard_end, self.end):
            if day <= end <= day + timedelta(days=ENDS_SOON_DAYS):
                return end
        return None


@dataclass(frozen=True)
class SupportFee:
    """What long-term support adds per cluster-hour to what the plan otherwise counts (USD list price)."""

    what: str
    per_hour: float
    source: str


# Premium tier (LTS needs it), over the Free tier the cluster otherwise gets. Secondary sources only: Microsoft's
# docs link https://azure.microsoft.com/pricing/details/kubernetes-service/ without stating the rate, and several
# independent write-ups quote $0.60 per cluster-hour (docs/sources.md).
AKS_LTS_FEE = SupportFee(
    "AKS Premium tier (LTS)",
    0.60,
    "azure.microsoft.com/pricing/details/kubernetes-service as quoted by secondary sources (2026-11-26)",
)
# EKS extended support: $0.60 per cluster-hour instead of $0.10, so $0.50 over standard support (secondary quotes
# of https://aws.amazon.com/eks/pricing/; billing starts the day standard support ends, EKS user guide).
EKS_EXTENDED_FEE = SupportFee(
    "EKS extended support surcharge",
    0.50,
    "aws.amazon.com/eks/pricing as quoted by secondary sources (2026-11-26)",
)


def _d(text: str) -> date:
    return date.fromisoformat(text)


def _aks(minor: str, ga: str | None, community_end: str, lts_end: str, planned: str | None = None) -> KubernetesWindow:
    source = f"{AKS_DOCS}; GA: {EOL_AKS}" if ga else f"{AKS_DOCS} (release calendar: GA planned, not confirmed)"
    return KubernetesWindow(
        minor, _d(ga) if ga else None, _d(community_end), _d(lts_end), source, False, _d(planned) if planned else None
    )


def _eks(minor: str, ga: str, standard_end: str, extended_end: str) -> KubernetesWindow:
    return KubernetesWindow(minor, _d(ga), _d(standard_end), _d(extended_end), EOL_EKS)


# AKS: GA (release note day), end of community support, end of LTS. Docs months expanded to their last day, but
# 1.30 (Aug 22, 2025) and 1.31 (Nov 1, 2025) community ends, which the page gives to the day.
AKS_MINORS: dict[str, KubernetesWindow] = {
    "1.29": _aks("1.29", "2024-03-18", "2025-03-31", "2026-04-30"),
    "1.30": _aks("1.30", "2024-08-05", "2025-08-22", "2026-07-31"),
    "1.31": _aks("1.31", "2024-10-25", "2025-11-01", "2026-11-30"),
    "1.32": _aks("1.32", "2025-04-06", "2026-03-31", "2027-03-31"),
    "1.33": _aks("1.33", "2025-06-17", "2026-07-31", "2027-07-31"),
    "1.34": _aks("1.34", "2026-01-04", "2026-11-30", "2027-11-30"),
    "1.35": _aks("1.35", "2026-03-05", "2027-03-31", "2028-03-31"),
    "1.36": _aks("1.36", "2026-06-30", "2027-06-30", "2028-06-30"),
    # Calendar only: AKS GA "Oct 2026" planned; no release note in the sources read (which end 2026-08-21) says it
    # is GA, so it is "expected" from the month's last day: a warning naming az aks get-versions, never a refusal.
    "1.37": _aks("1.37", None, "2027-10-31", "2028-10-31", planned="2026-10-31"),
}
# EKS: Amazon EKS release, end of standard support, end of extended support (exact days).
EKS_MINORS: dict[str, KubernetesWindow] = {
    "1.29": _eks("1.29", "2024-01-23", "2025-03-23", "2026-03-23"),
    "1.30": _eks("1.30", "2024-05-23", "2025-07-23", "2026-07-23"),
    "1.31": _eks("1.31", "2024-09-26", "2025-11-26", "2026-11-26"),
    "1.32": _eks("1.32", "2025-01-25", "2026-03-23", "2027-03-23"),
    "1.33": _eks("1.33", "2025-05-28", "2026-07-29", "2027-07-29"),
    "1.34": _eks("1.34", "2025-10-06", "2026-12-02", "2027-12-02"),
    "1.35": _eks("1.35", "2026-01-28", "2027-03-27", "2028-03-27"),
    "1.36": _eks("1.36", "2026-06-02", "2027-08-02", "2028-08-02"),
}


def upgrade_targets(minors: dict[str, KubernetesWindow], day: date) -> list[str]:
    """The minors worth moving to on ``day``: GA (a release note says so), in standard support, with at least
    ``ENDS_SOON_DAYS`` of it left, so the advice never points at a minor that itself ends soon."""
    return [
        w.minor
        for w in minors.values()
        if w.status(day) == STANDARD and w.standard_end >= day + timedelta(days=ENDS_SOON_DAYS)
    ]


def default_minor(minors: dict[str, KubernetesWindow], day: date) -> str | None:
    """The default ``kubernetesVersion`` on ``day``: the newest minor in standard support but one (the clouds'
    own default stays one behind the newest), or the only one; None when no minor is in standard support."""
    standard = [w.minor for w in minors.values() if w.status(day) == STANDARD]
    if not standard:
        return None
    return standard[-2] if len(standard) > 1 else standard[-1]
