"""``gpupools fit``'s answer: the fit on each candidate size, the cheapest chosen, and the runner-up.

With ``size`` in the demand only that size is fitted; otherwise every catalog size of the cloud that can serve the
demand, and the cheapest total by the price book in the demand's region wins (then fewer GPUs, then fewer nodes);
sizes without a price there come last. The solver's time is shared by the sizes: each gets what is left over the
sizes still to go, so the whole answer stays within ``time_limit``. Sizes are ranked on the bill and GPUs alone; the
chosen one is solved again with the third tier (fewest layouts), which leaves its bill and GPUs as they were.
Time-slicing and MPS are not considered.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.instances import INSTANCE_SIZES
from ..catalog.prices import PriceBook
from ..catalog.regions import Places
from ..config.demand import Demand
from ..config.errors import ConfigError, Problem
from ..resolve.place_rules import not_offered_problem
from ..catalog.offers import offers_snapshot
from ..catalog.clock import plan_date
from ..domain.fit_solver import DEFAULT_TIME_LIMIT, LAYOUTS_TIME_LIMIT, Objective
from ..untrusted.lookup import did_you_mean
from .requests import cloud_cuts_gpus, size_request
from .size_fit import SizeFit, fit_size

OUT_OF_SCOPE = "time-slicing and MPS are not considered: every replica gets a MIG instance or a whole GPU"


@dataclass(frozen=True)
class FitAnswer:
    """The chosen fit, the other sizes' fits in order, and the sizes that cannot serve the demand (with why)."""

    demand: Demand
    chosen: SizeFit
    others: tuple[SizeFit, ...]
    refused: tuple[tuple[str, str], ...]  # (size, why)
    currency: str
    price_origin: str

    @property
    def runner_up(self) -> SizeFit | None:
        return self.others[0] if self.others else None


def fit_demand(
    demand: Demand, book: PriceBook, time_limit: float = DEFAULT_TIME_LIMIT, objective: Objective = "bill"
) -> FitAnswer:
    """The answer (module docstring); a ``ConfigError`` when no size can serve the demand."""
    problem = cloud_cuts_gpus(demand)
    if problem is not None:
        raise ConfigError([Problem("migManager", problem)])
    chosen_cloud = cloud_named(demand.cloud)
    places = chosen_cloud.facet(Places) if chosen_cloud.has(Places) else None
    if places is not None and demand.region not in places.names:
        meant = did_you_mean(demand.region, places.names)
        raise ConfigError(
            [
                Problem(
                    "region",
                    f"'{demand.region}' is not a region of {chosen_cloud.display_name}; {meant}"
                    f"allowed: a name in {places.source}",
                )
            ]
        )
    if demand.size is not None:
        known = INSTANCE_SIZES.get(demand.size)
        if known is None or known.cloud != demand.cloud:
            raise ConfigError(
                [
                    Problem(
                        "size",
                        f"'{demand.size}' is not a {chosen_cloud.display_name} size the catalog knows; "
                        + did_you_mean(
                            demand.size, [s.name for s in INSTANCE_SIZES.values() if s.cloud == demand.cloud]
                        )
                        + "see gpupools sizes",
                    )
                ]
            )
        sold = not_offered_problem(known.name, demand.region, "size", day=plan_date().day)  # as check dates it
        if sold is not None:
            raise ConfigError([sold])
        sizes = [known]
    else:
        # Sizes with a list price in the region (the choice is by price); with MIG asked for, sizes with MIG.
        mig = any(workload.gpu is None for workload in demand.workloads)
        snapshot = offers_snapshot()  # once: finding it reads the environment
        day = plan_date().day
        sizes = sorted(
            (
                s
                for s in INSTANCE_SIZES.values()
                if s.cloud == demand.cloud
                and (s.gpu.mig_capable or not mig)
                and book.lookup(s.name, demand.region, "onDemand") is not None
                and not_offered_problem(s.name, demand.region, "size", snapshot, day) is None
            ),
            key=lambda s: s.name,
        )
    deadline = time.monotonic() + time_limit
    fits: list[SizeFit] = []
    refused: list[tuple[str, str]] = []
    for index, size in enumerate(sizes):
        request, problems = size_request(demand, size)
        if request is None:
            refused.append((size.name, "; ".join(problems)))
            continue
        share = max(deadline - time.monotonic(), 0.05) / (len(sizes) - index)
        found = fit_size(demand, request, book, share, objective, 0 if len(sizes) > 1 else LAYOUTS_TIME_LIMIT)
        if found is None:
            refused.append((size.name, "no valid layout holds every demanded profile"))
        else:
            fits.append(found)
    if not fits:
        where = "size" if demand.size else "workloads"
        raise ConfigError(
            [Problem(where, f"{size}: {why}") for size, why in refused]
            or [Problem("region", f"no {chosen_cloud.display_name} size that fits has a price in {demand.region}")]
        )
    fits.sort(key=_rank_gpus if objective == "gpus" else _rank)
    if len(sizes) > 1:  # the fewest layouts (third tier) only for the size shown in full: same bill, same GPUs
        left = max(deadline - time.monotonic(), 0.05)
        fits[0] = fit_size(demand, fits[0].request, book, left, objective, min(LAYOUTS_TIME_LIMIT, left)) or fits[0]
    return FitAnswer(demand, fits[0], tuple(fits[1:]), tuple(refused), book.currency, book.origin)


def _rank(fit: SizeFit) -> tuple:
    monthly = fit.monthly
    return (monthly is None, monthly or 0.0, fit.gpus, fit.nodes, fit.request.size.name)


def _rank_gpus(fit: SizeFit) -> tuple:
    return (fit.gpus, *_rank(fit))


def size_json(fit: SizeFit, currency: str) -> dict[str, Any]:
    size = fit.request.size
    solution = fit.solution
    return {
        "size": size.name,
        "gpu": size.gpu.name,
        "gpusPerNode": size.gpus,
        "gpus": fit.gpus,
        "nodes": fit.nodes,
        "spareGpus": sum(pool.spare for pool in fit.pools),
        "monthly": fit.monthly,
        "currency": currency,
        "nodePrice": None
        if fit.price is None
        else {
            "perHour": fit.price.per_hour,
            "source": fit.price.source,
            "retrieved": fit.price.retrieved,
            "capacity": "onDemand",
        },
        "lowerBound": {"gpus": fit.lower_bound, "solverGpus": solution.bound_gpus, "solverNodes": solution.bound_nodes},
        "proven": fit.proven,
        "provenLayouts": solution.proven_layouts,
        "stoppedByTimeLimit": fit.stopped_by_time,
        "greedy": {"gpus": fit.greedy_gpus, "nodes": fit.greedy_nodes},
        "pools": [
            {
                "name": pool.name,
                "gpusByLayout": [
                    {"gpus": gpus, "layout": dict(config) if config is not None else "whole"}
                    for config, gpus in pool.groups
                ],
                "gpus": pool.gpus,
                "nodes": pool.nodes,
                "spareGpus": pool.spare,
            }
            for pool in fit.pools
        ],
        "notes": list(fit.notes),
    }


def answer_json(answer: FitAnswer) -> dict[str, Any]:
    chosen = answer.chosen
    demand = answer.demand
    return {
        "demand": demand.model_dump(by_alias=True, exclude_none=True),
        **size_json(chosen, answer.currency),
        "profiles": dict(chosen.request.profile_of),  # workload -> the MIG profile each replica gets
        "perGpu": [use.to_json() for use in chosen.per_gpu],
        "stack": chosen.stack,
        "runnerUp": None if answer.runner_up is None else size_json(answer.runner_up, answer.currency),
        "otherSizes": [
            {"size": f.request.size.name, "gpus": f.gpus, "nodes": f.nodes, "monthly": f.monthly} for f in answer.others
        ],
        "refusedSizes": [{"size": size, "why": why} for size, why in answer.refused],
        "prices": answer.price_origin,
        "outOfScope": OUT_OF_SCOPE,
    }
