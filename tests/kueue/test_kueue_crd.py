"""The objects against Kueue v0.19.2's own CRDs and CEL rules (tests/support/kueue_crd.py, read from ../shared), and
borrowing as Kueue's docs state it: a ClusterQueue borrows only for (flavor, resource) pairs it lists, up to what the
cohort leaves unused, its ``borrowingLimit`` and the lenders' ``lendingLimit`` (cluster_queue.md, "Flavors and
borrowing semantics", "BorrowingLimit", "LendingLimit"; cohort.md: "it must define nominal quota ... even if this
value is 0"). The borrowing oracle below is written from those sentences, not from the package."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpupools.kueue import KUEUE_API_VERSIONS, KueueError, PoolFlavor, TeamDemand, kueue_objects
from support import kueue_crd

needs_crds = pytest.mark.skipif(kueue_crd.CRDS is None, reason="needs ../shared/reference/kueue/crds")

MIG_1G, GPU = "nvidia.com/mig-1g.5gb", "nvidia.com/gpu"
POOLS = [PoolFlavor("a", {MIG_1G: 28}), PoolFlavor("b", {MIG_1G: 14}), PoolFlavor("whole", {GPU: 8})]


def _teams(**limits: Any) -> list[TeamDemand]:
    return [TeamDemand("alpha", {MIG_1G: 28}, **limits), TeamDemand("beta", {MIG_1G: 14, GPU: 2})]


def _queue(objects, name) -> dict[str, Any]:
    (found,) = [o for o in objects if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == name]
    return found


def _quota(queue, flavor: str, resource: str) -> dict[str, Any] | None:
    for group in queue["spec"]["resourceGroups"]:
        for listed in group["flavors"]:
            for quota in listed["resources"]:
                if listed["name"] == flavor and quota["name"] == resource:
                    return quota
    return None


def _largest_admitted(objects, queue_name: str, flavor: str, resource: str, used: dict[str, int]) -> int:
    """The most of ``resource`` one pod set of ``queue_name`` may take on ``flavor``, with the cohort's other queues
    using ``used`` (queue -> amount) of their quota there, as Kueue's docs state the rule."""
    queue = _queue(objects, queue_name)
    own = _quota(queue, flavor, resource)
    if own is None:  # "A ClusterQueue can only borrow quota for flavors that the ClusterQueue defines."
        return 0
    unused = own["nominalQuota"] - used.get(queue_name, 0)
    cohort = queue["spec"].get("cohort") or queue["spec"].get("cohortName")
    if cohort is None:
        return max(unused, 0)
    lent = 0
    for other in (o for o in objects if o["kind"] == "ClusterQueue" and o["metadata"]["name"] != queue_name):
        if (other["spec"].get("cohort") or other["spec"].get("cohortName")) != cohort:
            continue
        quota = _quota(other, flavor, resource)
        if quota is None:
            continue
        idle = max(quota["nominalQuota"] - used.get(other["metadata"]["name"], 0), 0)
        lent += min(idle, quota["lendingLimit"]) if "lendingLimit" in quota else idle
    borrow_cap = own.get("borrowingLimit")
    most = unused + lent if borrow_cap is None else min(unused + lent, unused + borrow_cap)
    return max(most, unused, 0)


@needs_crds
@pytest.mark.parametrize("api_version", list(KUEUE_API_VERSIONS))
@pytest.mark.parametrize("limits", [{}, {"borrowing_limit": 4, "lending_limit": 2}, {"lending_limit": 0}])
@pytest.mark.parametrize("cohort", ["gpupools", None])
def test_every_object_passes_the_real_crds_and_their_cel_rules(api_version, limits, cohort):
    objects = kueue_objects(POOLS, _teams(**limits), cohort=cohort, api_version=api_version)
    found = {f"{o['kind']}/{o['metadata']['name']}": kueue_crd.problems(o) for o in objects}
    assert not any(found.values()), found
    assert {o["apiVersion"] for o in objects} == {api_version}


@needs_crds
def test_the_objects_reach_the_cel_rules_that_matter():
    kueue_crd.reached.clear()
    for api_version in KUEUE_API_VERSIONS:
        for obj in kueue_objects(POOLS, _teams(borrowing_limit=1, lending_limit=1), api_version=api_version):
            kueue_crd.problems(obj)
    rules = {rule for _, rule in kueue_crd.reached}
    assert "self.flavors.all(x, size(x.resources) == size(self.coveredResources))" in rules
    assert any("borrowingLimit" in rule and "cohortName" in rule for rule in rules)  # v1beta2's
    assert any("borrowingLimit" in rule and "self.cohort)" in rule for rule in rules)  # v1beta1's
    assert any("x.operator in ['Equal', 'Exists']" in rule for rule in rules)  # ResourceFlavor tolerations
    assert ("LocalQueue", "self == oldSelf") in kueue_crd.reached  # clusterQueue is immutable: a re-apply keeps it


def _valid(kind: str, api_version: str = "kueue.x-k8s.io/v1beta2") -> dict[str, Any]:
    objects = kueue_objects(POOLS, _teams(borrowing_limit=1), api_version=api_version)
    found = copy.deepcopy(next(o for o in objects if o["kind"] == kind))
    assert kueue_crd.problems(found) == []
    return found


def _first_quota(obj):
    return obj["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]


BROKEN = {
    "unknown-field": ("ClusterQueue", lambda o: o["spec"].update(cohrt="x"), "CRD schema", "'cohrt' was unexpected"),
    "v1beta1-field-in-v1beta2": (
        "ClusterQueue",
        lambda o: o["spec"].update(cohort=o["spec"].pop("cohortName")),
        "CRD schema",
        "'cohort' was unexpected",
    ),
    "borrowing-without-cohort": (
        "ClusterQueue",
        lambda o: (o["spec"].pop("cohortName"), o["spec"].pop("preemption")),
        "CRD CEL",
        "borrowingLimit must be nil when cohort is empty",
    ),
    "resources-per-flavor": (
        "ClusterQueue",
        lambda o: o["spec"]["resourceGroups"][0]["coveredResources"].append("example.com/x"),
        "CRD CEL",
        "flavors must have the same number of resources",
    ),
    "quantity": ("ClusterQueue", lambda o: _first_quota(o).update(lendingLimit="2 GPUs"), "CRD schema", "match"),
    "reclaim": (
        "ClusterQueue",
        lambda o: o["spec"]["preemption"].update(reclaimWithinCohort="Always"),
        "CRD schema",
        "is not one of",
    ),
    "cluster-scoped": ("ClusterQueue", lambda o: o["metadata"].update(namespace="x"), "CRD schema", "cluster-scoped"),
    "toleration-operator": (
        "ResourceFlavor",
        lambda o: o["spec"]["tolerations"][0].update(operator="In"),
        "CRD CEL",
        "operator",
    ),
    "no-namespace": ("LocalQueue", lambda o: o["metadata"].pop("namespace"), "CRD schema", "namespaced"),
    "version": ("LocalQueue", lambda o: o.update(apiVersion="kueue.x-k8s.io/v1"), "CRD schema", "no served"),
}


@needs_crds
@pytest.mark.parametrize("kind, mutate, check, expected", BROKEN.values(), ids=BROKEN.keys())
def test_the_crd_check_refuses_a_broken_object(kind, mutate, check, expected):
    obj = _valid(kind)
    mutate(obj)
    found = kueue_crd.problems(obj)
    assert any(p.startswith(check) and expected in p for p in found), found


def test_a_team_whose_pool_is_idle_lends_it_and_both_queues_list_both_flavors():
    objects = kueue_objects(POOLS, _teams())
    alpha, beta = _queue(objects, "alpha"), _queue(objects, "beta")

    def pairs(queue):
        return {
            (f["name"], q["name"])
            for g in queue["spec"]["resourceGroups"]
            for f in g["flavors"]
            for q in f["resources"]
        }

    assert pairs(alpha) == pairs(beta) == {("a", MIG_1G), ("b", MIG_1G), ("whole", GPU)}
    assert _quota(beta, "a", MIG_1G) == {"name": MIG_1G, "nominalQuota": 0}
    assert _quota(alpha, "whole", GPU) == {"name": GPU, "nominalQuota": 0}
    # alpha idle: beta borrows all of alpha's 28 slices on pool a; alpha busy: none.
    assert _largest_admitted(objects, "beta", "a", MIG_1G, {}) == 28
    assert _largest_admitted(objects, "beta", "a", MIG_1G, {"alpha": 28}) == 0
    assert _largest_admitted(objects, "alpha", "whole", GPU, {}) == 2  # and alpha borrows beta's idle GPUs
    # Kueue's answer for queues that list only their own flavors, as before: nothing to borrow.
    own_only = copy.deepcopy(objects)
    for queue in (o for o in own_only if o["kind"] == "ClusterQueue"):
        for group in queue["spec"]["resourceGroups"]:
            group["flavors"] = [f for f in group["flavors"] if any(q["nominalQuota"] for q in f["resources"])]
    assert _largest_admitted(own_only, "beta", "a", MIG_1G, {}) == 0


def test_borrowing_and_lending_limits_cap_what_moves():
    objects = kueue_objects(POOLS, [TeamDemand("alpha", {MIG_1G: 28}, lending_limit=5), _teams()[1]])
    assert _largest_admitted(objects, "beta", "a", MIG_1G, {}) == 5
    objects = kueue_objects(POOLS, [_teams()[0], TeamDemand("beta", {MIG_1G: 14, GPU: 2}, borrowing_limit=3)])
    assert _largest_admitted(objects, "beta", "a", MIG_1G, {}) == 3
    assert _quota(_queue(objects, "beta"), "a", MIG_1G) == {"name": MIG_1G, "nominalQuota": 0, "borrowingLimit": 3}
    objects = kueue_objects(POOLS, _teams(borrowing_limit=3), cohort=None)
    assert _largest_admitted(objects, "beta", "a", MIG_1G, {}) == 0  # no cohort: no borrowing, and no limits written
    assert "borrowingLimit" not in _quota(_queue(objects, "alpha"), "a", MIG_1G)


def test_a_queue_lists_its_own_flavors_first_so_it_uses_its_quota_before_borrowing():
    objects = kueue_objects(POOLS, [TeamDemand("alpha", {MIG_1G: 20}), TeamDemand("beta", {MIG_1G: 14})])
    order = {
        name: [f["name"] for f in _queue(objects, name)["spec"]["resourceGroups"][0]["flavors"]]
        for name in ("alpha", "beta")
    }
    assert order == {"alpha": ["a", "b"], "beta": ["b", "a"]}


def test_a_negative_or_non_integer_limit_is_refused():
    with pytest.raises(KueueError, match="borrowingLimit must be a whole number of at least 0"):
        TeamDemand("t", {GPU: 1}, borrowing_limit=-1)
    with pytest.raises(KueueError, match="lendingLimit must be a whole number"):
        TeamDemand("t", {GPU: 1}, lending_limit=True)
    with pytest.raises(KueueError, match="api_version"):
        kueue_objects(POOLS, _teams(), api_version="kueue.x-k8s.io/v1")
