"""Kueue objects for pools and teams, checked as Kueue would check them (tests/support/kueue_check.py: our schema
written from Kueue v0.14.8's documented v1beta1 fields, the CRDs' CEL rules and the webhook's rules, rewritten by
us), and quotas that equal each team's demand, computed here from the inputs alone. tests/kueue/test_kueue_schema.py
shows that each of those checks can fail.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupools.catalog.labels import Taint
from gpupools.kueue import KueueError, PoolFlavor, TeamDemand, dns_label, kueue_objects, render_yaml
from support import kueue_check, kueue_schema

MIG_1G = "nvidia.com/mig-1g.5gb"
MIG_2G = "nvidia.com/mig-2g.10gb"
MIG_3G = "nvidia.com/mig-3g.20gb"
GPU = "nvidia.com/gpu"

# Pools as (name, {resource: capacity}); teams as (name, {resource: demand}). The first n of each make a case.
POOLS = [
    ("balanced", {MIG_1G: 32, MIG_2G: 16, MIG_3G: 16}),
    ("whole", {GPU: 8}),
    ("small", {MIG_1G: 56}),
]
TEAMS = [
    ("research", {GPU: 2, MIG_3G: 4}),
    ("Chat Serving", {MIG_1G: 24}),
    ("tune", {MIG_2G: 6, MIG_1G: 4}),
]


def _offered(pools: list[tuple[str, dict[str, int]]]) -> set[str]:
    return {r for _, capacity in pools for r, n in capacity.items() if n}


def _cases():
    for n_pools, n_teams in itertools.product(range(1, 4), range(1, 4)):
        pools, teams = POOLS[:n_pools], TEAMS[:n_teams]
        # Keep the teams the pools can serve: the refusal of the others has its own test.
        teams = [(t, d) for t, d in teams if set(d) <= _offered(pools)] or [("solo", {r: 1 for r in _offered(pools)})]
        yield pytest.param(pools, teams, id=f"{n_pools}pools-{n_teams}teams")


def _build(pools, teams, **options) -> list[dict[str, Any]]:
    return kueue_objects(
        [PoolFlavor(name, capacity) for name, capacity in pools],
        [TeamDemand(name, demand) for name, demand in teams],
        **options,
    )


def _of_kind(objects, kind):
    return [o for o in objects if o["kind"] == kind]


def _quotas(cluster_queue) -> dict[tuple[str, str], int]:
    """(flavor, resource) -> nominal quota, read from the object."""
    return {
        (flavor["name"], quota["name"]): quota["nominalQuota"]
        for group in cluster_queue["spec"]["resourceGroups"]
        for flavor in group["flavors"]
        for quota in flavor["resources"]
    }


def _assert_valid(objects):
    found = {f"{o['kind']}/{o['metadata']['name']}": kueue_check.all_problems(o) for o in objects}
    assert not any(found.values()), found


def _assert_quotas_match(objects, pools, teams):
    """Each team's quotas add up to its demand; no flavor gives out more of a resource than its pool holds. Every
    queue lists every (flavor, resource) pair of the cohort: each pool offering a demanded resource, with each
    demanded resource it shares a group with, so each team may borrow any of them (Kueue lends only listed pairs)."""
    given_out: dict[tuple[str, str], int] = {}
    demanded = {r for _, demand in teams for r in demand}
    offering = {name for name, capacity in pools if any(capacity.get(r) for r in demanded)}
    listed = [set(_quotas(q)) for q in _of_kind(objects, "ClusterQueue")]
    assert all(pairs == listed[0] for pairs in listed)
    assert {r for _, r in listed[0]} == demanded and {f for f, _ in listed[0]} == offering
    for team, demand in teams:
        label = team.lower().replace(" ", "-")
        (queue,) = [q for q in _of_kind(objects, "ClusterQueue") if q["metadata"]["name"] == label]
        quotas = _quotas(queue)
        assert {r for (_, r), n in quotas.items() if n} == set(demand)
        for resource, count in demand.items():
            assert sum(n for (_, r), n in quotas.items() if r == resource) == count
        for key, n in quotas.items():
            given_out[key] = given_out.get(key, 0) + n
    for pool, capacity in pools:
        for resource in {r for _, r in given_out}:
            assert given_out.get((pool, resource), 0) <= capacity.get(resource, 0)


@pytest.mark.parametrize("pools, teams", list(_cases()))
def test_objects_pass_kueues_checks_and_quotas_equal_demand(pools, teams):
    objects = _build(pools, teams)
    _assert_valid(objects)
    _assert_quotas_match(objects, pools, teams)
    flavors = _of_kind(objects, "ResourceFlavor")
    assert [f["metadata"]["name"] for f in flavors] == [name for name, _ in pools]
    assert [f["spec"]["nodeLabels"] for f in flavors] == [{"gpupools.io/pool": name} for name, _ in pools]
    assert all(
        f["spec"]["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
        for f in flavors
    )
    queues = _of_kind(objects, "LocalQueue")
    assert [(q["metadata"]["namespace"], q["spec"]["clusterQueue"]) for q in queues] == sorted(
        (t.lower().replace(" ", "-"),) * 2 for t, _ in teams
    )


def test_the_objects_reach_every_cel_rule():
    """Each CEL rule has a place in the objects written for all pools and teams, so each one is run on them."""
    kueue_check.reached.clear()
    _assert_valid(_build(POOLS, TEAMS))
    assert kueue_check.reached == set(kueue_check.CEL_RULES)


@given(
    capacities=st.lists(
        st.dictionaries(st.sampled_from([MIG_1G, MIG_2G, MIG_3G, GPU]), st.integers(0, 20), max_size=4),
        min_size=1,
        max_size=3,
    ),
    demands=st.lists(
        st.dictionaries(st.sampled_from([MIG_1G, MIG_2G, MIG_3G, GPU]), st.integers(1, 20), min_size=1, max_size=4),
        min_size=1,
        max_size=3,
    ),
    cohort=st.booleans(),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_servable_demand_gives_valid_objects_and_the_rest_is_refused(capacities, demands, cohort):
    pools = [(f"pool-{i}", c) for i, c in enumerate(capacities)]
    teams = [(f"team-{i}", d) for i, d in enumerate(demands)]
    held = {r: sum(c.get(r, 0) for _, c in pools) for r in {r for _, d in teams for r in d}}
    asked = {r: sum(d.get(r, 0) for _, d in teams) for r in held}
    if any(asked[r] > held[r] for r in held):
        with pytest.raises(KueueError):
            _build(pools, teams, cohort="gpupools" if cohort else None)
        return
    objects = _build(pools, teams, cohort="gpupools" if cohort else None)
    _assert_valid(objects)
    _assert_quotas_match(objects, pools, teams)


def test_a_demand_for_a_resource_no_pool_offers_names_the_team_and_resource():
    with pytest.raises(KueueError, match=r"team research demands nvidia\.com/gpu, which no pool offers"):
        _build([POOLS[0]], [("research", {GPU: 2})])
    with pytest.raises(KueueError, match=r"teams a, b demand nvidia\.com/gpu, which no pool offers"):
        _build([POOLS[0]], [("b", {GPU: 2}), ("a", {GPU: 1, MIG_1G: 1})])


def test_a_demand_beyond_the_pools_is_refused():
    with pytest.raises(KueueError, match=r"teams demand 60x nvidia\.com/mig-1g\.5gb in all; the pools offer 32"):
        _build([POOLS[0]], [("a", {MIG_1G: 30}), ("b", {MIG_1G: 30})])


def test_a_demand_goes_whole_to_a_pool_with_room_and_is_split_only_when_none_has():
    pools = [("first", {MIG_1G: 4}), ("second", {MIG_1G: 10})]
    (queue,) = _of_kind(_build(pools, [("t", {MIG_1G: 6})]), "ClusterQueue")
    assert _quotas(queue) == {("first", MIG_1G): 0, ("second", MIG_1G): 6}
    (queue,) = _of_kind(_build(pools, [("t", {MIG_1G: 12})]), "ClusterQueue")
    assert _quotas(queue) == {("first", MIG_1G): 4, ("second", MIG_1G): 8}


def test_resources_sharing_a_pool_share_one_group_and_the_others_do_not():
    (queue,) = _of_kind(_build(POOLS, [("t", {MIG_1G: 2, MIG_3G: 1, GPU: 1})]), "ClusterQueue")
    groups = [(g["coveredResources"], [f["name"] for f in g["flavors"]]) for g in queue["spec"]["resourceGroups"]]
    assert groups == [([GPU], ["whole"]), ([MIG_1G, MIG_3G], ["balanced", "small"])]


def test_the_cohort_lets_teams_borrow_and_reclaim_and_none_means_neither():
    (queue,) = _of_kind(_build(POOLS[:1], TEAMS[2:]), "ClusterQueue")
    assert queue["spec"]["cohort"] == "gpupools"
    assert queue["spec"]["preemption"] == {"reclaimWithinCohort": "Any"}
    assert queue["spec"]["namespaceSelector"] == {}
    objects = _build(POOLS[:1], TEAMS[2:], cohort=None, local_queues=False)
    (queue,) = _of_kind(objects, "ClusterQueue")
    assert "cohort" not in queue["spec"] and "preemption" not in queue["spec"]
    assert not _of_kind(objects, "LocalQueue")
    _assert_valid(objects)


@pytest.mark.parametrize(
    "name, label",
    [("research", "research"), ("Chat Serving", "chat-serving"), ("ML_team.2", "ml-team-2"), ("--x--", "x")],
)
def test_names_become_dns_labels(name, label):
    assert dns_label(name, "team") == label
    assert re.fullmatch(kueue_schema.DNS1123_LABEL["pattern"], label)


@pytest.mark.parametrize(
    "name, message",
    [("!!!", "has no letter or digit"), ("éé", "has no letter or digit"), ("a" * 64, "at most 63")],
    ids=["punctuation", "non-ascii", "too-long"],
)
def test_a_name_that_cannot_be_made_a_label_is_refused(name, message):
    with pytest.raises(KueueError, match=message):
        TeamDemand(name, {GPU: 1})


def test_two_teams_that_make_one_name_are_refused():
    with pytest.raises(KueueError, match="teams 'ML Team' and 'ml-team' both make the Kubernetes name ml-team"):
        _build([POOLS[1]], [("ML Team", {GPU: 1}), ("ml-team", {GPU: 1})])


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: TeamDemand("t", {"not a resource": 1}), "is not a Kubernetes resource name"),
        (lambda: TeamDemand("t", {GPU: -1}), "at least 0"),
        (lambda: TeamDemand("t", {GPU: True}), "at least 0"),
        (lambda: TeamDemand("t", {GPU: 0}), "demands nothing"),
        (lambda: PoolFlavor("p", {GPU: 1}, {f"k{i}": "v" for i in range(9)}), "9 node labels"),
    ],
    ids=["resource-name", "negative", "bool", "nothing", "labels"],
)
def test_bad_inputs_are_refused(build, message):
    with pytest.raises(KueueError, match=message):
        build()


def test_more_resource_groups_than_a_cluster_queue_holds_is_refused():
    pools = [PoolFlavor(f"p{i}", {f"example.com/r{i}": 1}) for i in range(17)]
    with pytest.raises(KueueError, match="need 17 resource groups; a ClusterQueue holds 16"):
        kueue_objects(pools, [TeamDemand("t", {f"example.com/r{i}": 1 for i in range(17)})])


def test_a_spot_pools_flavor_tolerates_both_taints():
    spot = Taint("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule")
    gpu = Taint("nvidia.com/gpu", "present", "NoSchedule")
    objects = kueue_objects([PoolFlavor("spot", {GPU: 2}, taints=(gpu, spot))], [TeamDemand("t", {GPU: 2})])
    (flavor,) = _of_kind(objects, "ResourceFlavor")
    assert [t["key"] for t in flavor["spec"]["tolerations"]] == [
        "nvidia.com/gpu",
        "kubernetes.azure.com/scalesetpriority",
    ]
    _assert_valid(objects)


def test_the_yaml_is_one_document_per_object_in_order():
    objects = _build(POOLS, TEAMS)
    text = render_yaml(objects)
    assert text.startswith("---\n") and text.count("\n---\n") == len(objects) - 1
    assert list(yaml.safe_load_all(text)) == objects
