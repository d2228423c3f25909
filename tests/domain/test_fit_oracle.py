"""``fit``'s bill against OR-Tools CP-SAT, an exact solver independent of the HiGHS the fit uses, on demands of 5 to
5,000 replicas on A100-40GB, A100-80GB and H100-80GB nodes, with teams and whole GPUs: the bill and GPUs equal the
optimum, the answer says "proven" and is the optimum, every layout is valid by NVIDIA's placement table, and each
GPU's replicas fit its layout. The oracle (``support.cpsat_oracle``, in its own process) solves a model written from
the placement table alone (``support.mig_fillings``): one integer per way to fill a GPU, whole GPUs, and nodes of 8
GPUs (any mix per node under the GPU Operator's MIG manager; one profile per pool under the cloud's)."""

from __future__ import annotations

import random

import pytest

from gpupools.catalog.instances import INSTANCE_SIZES
from gpupools.catalog.prices import snapshot
from gpupools.config.demand import parse_demand
from gpupools.domain.mig_layouts import check_layout
from gpupools.fit.answer import fit_demand
from support.cpsat_oracle import optimum
from support.mig_fillings import all_fillings

SIZES = ("p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge")
TEAMS = ("search", "research", None)


def _optimum(gpu_name: str, demand: dict[str, int], whole: int, per_node: int, per_pool: bool) -> tuple[int, int]:
    """(nodes, GPUs) lexicographically minimal, by CP-SAT over every way to fill one GPU (per pool: the fillings of
    one profile, the cloud's gpuInstanceProfile)."""
    names = sorted(demand)
    fillings = {tuple(dict(f).get(n, 0) for n in names) for f in all_fillings(gpu_name) if not per_pool or len(f) == 1}
    fillings.discard((0,) * len(names))
    nodes, gpus = optimum(sorted(fillings), [demand[n] for n in names], whole, per_node, per_pool)
    return nodes, gpus + whole


def _random_demand(seed: int) -> tuple[dict, str]:
    chooser = random.Random(seed)
    size = INSTANCE_SIZES[SIZES[seed % len(SIZES)]]
    profiles = [p.name for p in size.gpu.profiles]
    total = chooser.choice((5, 13, 40, 150, 600, 2_000, 5_000))
    chosen = chooser.sample(profiles, chooser.randint(1, min(5, len(profiles))))
    cuts = sorted(chooser.sample(range(1, total), len(chosen) - 1)) if len(chosen) > 1 else []
    counts = [b - a for a, b in zip([0, *cuts], [*cuts, total])]
    workloads = []
    for index, (profile, count) in enumerate(zip(chosen, counts)):
        team = chooser.choice(TEAMS)
        workloads.append({"name": f"w{index}", "slice": profile, "count": count, **({"team": team} if team else {})})
    if chooser.random() < 0.5:
        workloads.append({"name": "train", "gpu": "whole", "count": chooser.randint(1, 12), "team": "research"})
    return {"cloud": "aws", "region": "us-east-1", "size": size.name, "workloads": workloads}, size.name


def _check_answer(raw: dict, per_pool: bool = False) -> None:
    book = snapshot()
    answer = fit_demand(parse_demand(raw), book)
    fit = answer.chosen
    size = fit.request.size
    wanted = fit.request.demand(answer.demand.workloads)
    nodes, gpus = _optimum(size.gpu.name, wanted, fit.request.whole, size.gpus, per_pool)
    price = book.lookup(size.name, raw["region"], "onDemand")
    assert price is not None
    assert fit.monthly == pytest.approx(nodes * price.per_hour * 730, abs=0.01)
    assert (fit.nodes, fit.gpus) == (nodes, gpus)
    assert fit.proven  # the optimum, with HiGHS's certificate
    for pool in fit.pools:
        assert sum(count for _, count in pool.groups) == size.gpus
        for config, _ in pool.groups:
            assert config is None or not check_layout(size.gpu, dict(config)).problems
    for use in fit.per_gpu:
        instances = dict(use.layout) if use.layout is not None else {}
        needed: dict[str, int] = {}
        for workload, replicas in use.holds.items():
            profile = fit.request.profile_of.get(workload)
            if profile is None:
                assert use.layout is None and replicas == 1
            else:
                needed[profile] = needed.get(profile, 0) + replicas
        assert all(instances.get(p, 0) >= n for p, n in needed.items())
    held = {w: 0 for w in (w.name for w in answer.demand.workloads)}
    for use in fit.per_gpu:
        for workload, replicas in use.holds.items():
            held[workload] += replicas * use.gpus
    assert sum(use.gpus for use in fit.per_gpu) == fit.gpus  # no GPU beyond the optimum's is used
    assert held == {w.name: w.count for w in answer.demand.workloads}


@pytest.mark.parametrize("seed", range(18))
def test_random_demands_get_the_optimal_bill(seed):
    raw, _ = _random_demand(seed)
    _check_answer(raw)


@pytest.mark.parametrize(
    "workloads",
    [
        [{"name": "a", "slice": "2g.10gb", "count": 7}, {"name": "b", "slice": "1g.5gb", "count": 4}],
        [{"name": "a", "slice": "3g.20gb", "count": 900, "team": "x"}, {"name": "t", "gpu": "whole", "count": 3}],
    ],
)
def test_the_clouds_own_profiles_get_the_optimal_bill_per_pool(workloads):
    raw = {
        "cloud": "azure",
        "region": "southcentralus",
        "size": "Standard_ND96asr_v4",
        "migManager": "cloud",
        "workloads": workloads,
    }
    _check_answer(raw, per_pool=True)


def test_the_issues_demands_are_one_node_each():
    p4d = {
        "cloud": "aws",
        "region": "us-east-1",
        "size": "p4d.24xlarge",
        "workloads": [
            {"name": "a", "slice": "2g.10gb", "count": 7},
            {"name": "b", "slice": "1g.5gb", "count": 4},
            {"name": "c", "slice": "4g.20gb", "count": 2},
        ],
    }
    _check_answer(p4d)
    assert fit_demand(parse_demand(p4d), snapshot()).chosen.nodes == 1
