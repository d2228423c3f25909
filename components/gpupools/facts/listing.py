"""Every fact gpupools pins, as one list: chart versions, image tags, Kubernetes windows, cluster-autoscaler tags,
the price and offer snapshots, and the GitHub Actions SHAs, each with its source, the date it was read, and its
status on the plan's date (``catalog/clock.py``): ``current``, ``ends soon`` (an end within 60 days), ``ended``,
``old`` (a snapshot read more than ``SNAPSHOT_MAX_DAYS`` ago), ``expected`` (a GA only a calendar schedules) or
``not yet offered``. ``newer`` names a newer upstream release where the reference data shows one
(``catalog/upstream_releases.py``), with its release date or "release date not found".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from ..catalog import action_pins, autoscaler_versions, chart_refs, kubernetes_versions, upstream_releases
from ..catalog.cloud import KubernetesOffer
from ..catalog.cloud_registry import clouds
from ..catalog.kubernetes_versions import ENDED, ENDS_SOON_DAYS, EXPECTED, NOT_YET, KubernetesWindow
from ..catalog.offers import offers_snapshot
from ..catalog.prices import snapshot

SNAPSHOT_MAX_DAYS = 90  # a price or offer snapshot read longer ago than this is "old"
CHARTS = (
    chart_refs.GPU_OPERATOR,
    chart_refs.DEVICE_PLUGIN,
    chart_refs.DCGM_EXPORTER,
    chart_refs.DRA_DRIVER,
    chart_refs.CLUSTER_AUTOSCALER,
)
CHART_SOURCE = "the chart's Helm repository index (catalog/chart_refs.py; docs/sources.md)"
CHARTS_READ = "2026-08-22"  # the newest commit of the git snapshots the chart pins were checked against
# Charts checked later than CHARTS_READ, with the day each was read.
LATER_CHARTS = ((chart_refs.KARPENTER, "2026-11-28"),)


@dataclass(frozen=True)
class Fact:
    """One pinned fact: what kind, its name and value, where it comes from, when read, and its status."""

    kind: str
    name: str
    value: str
    source: str
    read: str
    status: str
    until: str | None = None  # the end date the status refers to
    newer: str | None = None
    newer_source: str | None = None  # where the newer release was seen

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "value": self.value,
            "source": self.source,
            "read": self.read,
            "status": self.status,
            **({"until": self.until} if self.until else {}),
            **({"newer": self.newer} if self.newer else {}),
            **({"newerSource": self.newer_source} if self.newer_source else {}),
        }

    def status_text(self) -> str:
        """The status in words: ``ends soon on 2026-11-30``, ``current until ...``, ``newer: ...``."""
        word = {"ended": "on", "ends soon": "on"}.get(self.status, "until")
        until = f" {word} {self.until}" if self.until else ""
        newer = f"; newer: {self.newer}" if self.newer else ""
        return f"{self.status}{until}{newer}"


def _newer(name: str) -> tuple[str | None, str | None]:
    found = upstream_releases.NEWER_RELEASES.get(name)
    if found is None:
        return None, None
    released = "release date not found" if found.released == "not found" else f"released {found.released}"
    return f"{found.version} ({released})", found.source


def _window_status(window: KubernetesWindow, day: date) -> tuple[str, str | None]:
    status = window.status(day)
    if status == NOT_YET:
        return "not yet offered", None
    if status == EXPECTED:
        return "expected", None
    if status == ENDED:
        return "ended", window.end.isoformat()
    soon = window.ends_soon(day)
    if soon is not None:
        return "ends soon", soon.isoformat()
    end = window.standard_end if status == kubernetes_versions.STANDARD else window.end
    return "current", end.isoformat()


def _snapshot_status(read: str, day: date) -> str:
    try:
        age = (day - date.fromisoformat(read[:10])).days
    except ValueError:
        return "old"
    return "old" if age > SNAPSHOT_MAX_DAYS else "current"


def pinned_facts(day: date) -> list[Fact]:
    """Every pinned fact and its status on ``day``."""
    facts = [
        Fact("chart", c.name, c.default_version, f"{c.repo}; {CHART_SOURCE}", read, "current", None, *_newer(c.name))
        for c, read in [*((chart, CHARTS_READ) for chart in CHARTS), *LATER_CHARTS]
    ]
    facts.append(
        Fact(
            "image",
            chart_refs.DCGM_EXPORTER_IMAGE,
            chart_refs.DCGM_EXPORTER_IMAGE_TAG,
            "NVIDIA/dcgm-exporter tag 4.5.3-4.8.2, deployment/values.yaml image.tag",
            CHARTS_READ,
            "current",
            None,
            *_newer(chart_refs.DCGM_EXPORTER_IMAGE),
        )
    )
    for row in autoscaler_versions.AUTOSCALER_RELEASES.values():
        facts.append(
            Fact(
                "autoscaler image",
                f"cluster-autoscaler for {row.minor}",
                f"{row.tag}, tag of {row.released.isoformat()} (commit {row.commit[:12]})",
                f"{autoscaler_versions.IMAGE}; {autoscaler_versions.SOURCE}",
                autoscaler_versions.READ_ON.isoformat(),
                "current",
            )
        )
    for cloud in clouds():
        if not cloud.has(KubernetesOffer):
            continue
        offer = cloud.facet(KubernetesOffer)
        for window in offer.minors.values():
            status, until = _window_status(window, day)
            if window.ga:
                ga = f"GA {window.ga.isoformat()}"
            elif window.ga_planned:
                ga = f"GA planned {window.ga_planned.strftime('%Y-%m')}"
            else:
                ga = "GA not announced"
            phase = f"{offer.long_term} only, " if window.status(day) == kubernetes_versions.LONG_TERM else ""
            facts.append(
                Fact(
                    "kubernetes",
                    f"{offer.service} {window.minor}",
                    f"{phase}{ga}, standard to {window.standard_end.isoformat()}, all to {window.end.isoformat()}",
                    window.source,
                    kubernetes_versions.READ_ON.isoformat(),
                    status,
                    until,
                )
            )
    prices = snapshot()
    facts.append(
        Fact(
            "price snapshot",
            "catalog/price_snapshot.json",
            f"{len(prices.prices)} prices",
            "its 'sources' entries (docs/sources.md)",
            prices.retrieved,
            _snapshot_status(prices.retrieved, day),
        )
    )
    offers = offers_snapshot()
    if offers is None:
        facts.append(Fact("offer snapshot", "catalog/offers_snapshot.json", "unreadable", "-", "-", "old"))
    else:
        for item in offers.lists:
            source = offers.sources.get(item.source, {})
            facts.append(
                Fact(
                    "offer snapshot",
                    f"offers ({item.source})",
                    f"{len(item.sizes)} sizes, data of {item.data_date}",
                    f"{source.get('repo', item.source)} {source.get('path', '')} @ {source.get('commit', '')[:12]}",
                    offers.read,
                    _snapshot_status(item.data_date, day),  # the data's age, not the day it was copied
                )
            )
    facts += [
        Fact(
            "action",
            pin.action,
            f"{pin.sha[:12]} ({pin.release})",
            ".github/workflows/*.yml",
            action_pins.READ_ON.isoformat(),
            "current",
        )
        for pin in action_pins.ACTION_PINS
    ]
    return facts


def needs_attention(facts: list[Fact]) -> list[Fact]:
    """The facts the scheduled workflow opens an issue for: an end within 60 days, an old snapshot, or a GA only a
    calendar schedules (confirm it and add its release note's day)."""
    return [fact for fact in facts if fact.status in ("ends soon", "old", "expected")]


__all__ = ["ENDS_SOON_DAYS", "SNAPSHOT_MAX_DAYS", "Fact", "needs_attention", "pinned_facts"]
