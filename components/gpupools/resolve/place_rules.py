"""Places: the cluster's region (location) against the cloud's list, and each pool's size against the regions
that sell it (``catalog/regions.py``, ``catalog/offers.py``; sources in ``docs/sources.md``).

A name not in the list is refused with the nearest names (did-you-mean); text with characters no cloud uses in a
region is left to the cloud's syntax rule, which refuses it escaped and cut. A size the offers snapshot says is not
sold in the region is refused, naming the regions nearest by name that sell it, while the list is recent enough
(``offers.refuses_on``: 90 days); what the snapshot cannot answer is a "not checked" warning, never a refusal.
The provider's own region key (``azure-native:location``, ``aws:region``), where the stack file sets it, must
name the cluster's region: resources the program does not place explicitly go where the provider says.
Availability zones are not checked: no public per-size zone list by zone name exists (zone names map to zone ids
per account).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Collection, Mapping

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog import offers
from ..catalog.offers import offer
from ..catalog.regions import Places
from ..config.errors import Findings, Problem, field_path
from ..config.models import StackConfig
from ..untrusted.lookup import did_you_mean

# What every cloud's region names are made of; anything else is the syntax rules' to refuse (escaped, cut).
_REGION_TEXT = re.compile(r"[a-z0-9-]{1,64}")


def cluster_region(config: StackConfig) -> str | None:
    """The cluster's region (AWS) or location (Azure) as written, or None."""
    cluster = config.cluster
    if cluster is None:
        return None
    value = getattr(cluster, cloud_named(config.cloud).region_field, None)
    return value if isinstance(value, str) and value else None


def region_problems(config: StackConfig) -> list[Problem]:
    """A region name the cloud's list does not have, with did-you-mean."""
    cloud = cloud_named(config.cloud)
    region = cluster_region(config)
    if region is None or not cloud.has(Places) or not _REGION_TEXT.fullmatch(region):
        return []
    places = cloud.facet(Places)
    if region in places.names:
        return []
    meant = did_you_mean(region, places.names)
    return [
        Problem(
            field_path("cluster", cloud.region_field),
            f"'{region}' is not in {cloud.display_name}'s list of {cloud.region_field}s; {meant}"
            f"allowed: a name in {places.source}",
        )
    ]


def not_offered_problem(
    size: str, region: str, where: str, snapshot: offers.OffersSnapshot | None = None, day: date | None = None
) -> Problem | None:
    """The one refusal of a size the offers snapshot says ``region`` does not sell (``check``, ``plan`` and
    ``fit`` all ask it), on the plan's ``day``; None when it is sold or the snapshot cannot say."""
    return _not_offered(offer(size, region, snapshot, day), size, region, where)


def _not_offered(answer: offers.Offer, size: str, region: str, where: str) -> Problem | None:
    """The refusal's text for an answer already asked of the snapshot (``offer_findings`` has one per pool)."""
    if answer.status != "not offered":
        return None
    return Problem(
        where,
        f"'{size}' is not offered in {region} ({answer.why}); nearest by name that offer it: "
        f"{', '.join(answer.nearest)}; or choose another size",
    )


def provider_region_problems(
    raw: Mapping[str, Any], config: StackConfig, refused: Collection[str] = ()
) -> list[Problem]:
    """The provider's region key (``azure-native:location``) against the cluster's region: equal, or refused.
    Not while the cluster's region is itself refused (in ``refused``, field paths): a typo there is one error, and
    the provider's key is not asked to copy it."""
    cloud = cloud_named(config.cloud)
    key, region = cloud.provider_region_key, cluster_region(config)
    if key is None or region is None or key not in raw or raw[key] == region:
        return []
    if field_path("cluster", cloud.region_field) in refused:
        return []
    given = raw[key]
    shown = f"'{given}'" if isinstance(given, str) else f"a {type(given).__name__}"
    return [
        Problem(
            key,
            f"{shown} is not the cluster's {cloud.region_field} '{region}'; the provider would put what the "
            f"program does not place itself there; allowed: {region} (the same as gpupools:cluster."
            f"{cloud.region_field}), or leave it out",
        )
    ]


def offer_findings(config: StackConfig, day: date | None = None) -> Findings:
    """Each GPU pool's size against the regions that sell it, in the cluster's region, on the plan's ``day``."""
    region = cluster_region(config)
    found = Findings()
    if region is None or region_problems(config) or not _REGION_TEXT.fullmatch(region):
        return found
    region_field = cloud_named(config.cloud).region_field
    snapshot = offers.offers_snapshot()  # once: finding it reads the environment and the home directory
    for index, pool in enumerate(config.gpu_pools):
        if pool is None:
            continue
        answer = offer(pool.size, region, snapshot, day)
        refused = _not_offered(answer, pool.size, region, field_path("gpuPools", index, "size"))
        if refused is not None:
            found.problems.append(refused)
        elif answer.status == "not listed":
            found.warnings.append(
                f"gpuPools[{index}].size: {pool.size} is not listed in {region_field} {region} by the offers "
                f"snapshot ({answer.why}; an old copy, so not refused: a size launched since would be missing); "
                f"listed in: {', '.join(answer.nearest)}"
            )
        elif answer.status == "not checked":
            found.warnings.append(
                f"gpuPools[{index}].size: {pool.size} in {region_field} {region} not checked against the offers "
                f"snapshot ({answer.why})"
            )
        if getattr(pool, "availability_zones", None):
            found.warnings.append(
                f"gpuPools[{index}].availabilityZones: not checked against the zones that offer {pool.size} "
                "(no public per-size zone list)"
            )
    return found
