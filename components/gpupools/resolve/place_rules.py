"""Places: the cluster's region (location) against the cloud's list, and each pool's size against the regions
that sell it (``catalog/regions.py``, ``catalog/offers.py``; sources in ``docs/sources.md``).

A name not in the list is refused with the nearest names (did-you-mean); text with characters no cloud uses in a
region is left to the cloud's syntax rule, which refuses it escaped and cut. A size the offers snapshot says is not
sold in the region is refused, naming the regions nearest by name that sell it; what the snapshot cannot answer is
a "not checked" warning, never a refusal. Availability zones are not checked: no public per-size zone list by
zone name exists (zone names map to zone ids per account).
"""

from __future__ import annotations

import re

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
    size: str, region: str, where: str, snapshot: offers.OffersSnapshot | None = None
) -> Problem | None:
    """The one refusal of a size the offers snapshot says ``region`` does not sell (``check``, ``plan`` and
    ``fit`` all ask it); None when it is sold or the snapshot cannot say."""
    answer = offer(size, region, snapshot)
    if answer.status != "not offered":
        return None
    return Problem(
        where,
        f"'{size}' is not offered in {region} ({answer.why}); nearest by name that offer it: "
        f"{', '.join(answer.nearest)}; or choose another size",
    )


def offer_findings(config: StackConfig) -> Findings:
    """Each GPU pool's size against the regions that sell it, in the cluster's region."""
    region = cluster_region(config)
    found = Findings()
    if region is None or region_problems(config) or not _REGION_TEXT.fullmatch(region):
        return found
    region_field = cloud_named(config.cloud).region_field
    snapshot = offers.offers_snapshot()  # once: finding it reads the environment and the home directory
    for index, pool in enumerate(config.gpu_pools):
        if pool is None:
            continue
        answer = offer(pool.size, region, snapshot)
        refused = not_offered_problem(pool.size, region, field_path("gpuPools", index, "size"), snapshot)
        if refused is not None:
            found.problems.append(refused)
        elif answer.status == "not listed":
            found.warnings.append(
                f"gpuPools[{index}].size: {pool.size} is not listed in {region_field} {region} by the offers "
                f"snapshot ({answer.why}; an old copy, so not refused); listed in: {', '.join(answer.nearest)}"
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
