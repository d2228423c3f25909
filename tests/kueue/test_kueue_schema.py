"""Each check of tests/support/kueue_check.py can fail: a valid object, broken one way, is refused by the check
that holds that rule (our schema, a CEL rule, the webhook), with the reason. And the schema is what it claims:
valid JSON Schema, strict on every object we write, with the sizes the package keeps to."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpupools.kueue import PoolFlavor, TeamDemand, kueue_objects, limits
from support import kueue_check, kueue_schema

jsonschema = pytest.importorskip("jsonschema")

MIG_1G, MIG_2G = "nvidia.com/mig-1g.5gb", "nvidia.com/mig-2g.10gb"


def _valid(kind: str) -> dict[str, Any]:
    """One object of ``kind`` as gpupools writes it, accepted by every check: a pool offering two slice resources,
    a team asking for both (one resource group of two), in a cohort."""
    objects = kueue_objects([PoolFlavor("mix", {MIG_1G: 16, MIG_2G: 8})], [TeamDemand("t", {MIG_1G: 4, MIG_2G: 2})])
    (found,) = [o for o in objects if o["kind"] == kind]
    assert kueue_check.problems(found) == []
    return copy.deepcopy(found)


def _broken(kind: str, mutate) -> list[str]:
    obj = _valid(kind)
    mutate(obj)
    return kueue_check.problems(obj)


def _group(obj):
    return obj["spec"]["resourceGroups"][0]


def _quota(obj):
    return _group(obj)["flavors"][0]["resources"][0]


def _toleration(obj):
    return obj["spec"]["tolerations"][0]


def test_the_schemas_are_json_schema_and_strict_on_every_object_we_write():
    def objects(node):
        if isinstance(node, dict):
            if "properties" in node:
                yield node
            for value in node.values():
                yield from objects(value)
        elif isinstance(node, list):
            for value in node:
                yield from objects(value)

    for schema in kueue_schema.SCHEMAS.values():
        jsonschema.Draft202012Validator.check_schema(schema)
        assert all(node["additionalProperties"] is False for node in objects(schema))


def test_the_package_keeps_to_the_schemas_sizes():
    assert limits.MAX_RESOURCE_GROUPS == kueue_schema.MAX_RESOURCE_GROUPS
    assert limits.MAX_FLAVORS_PER_GROUP == limits.MAX_RESOURCES_PER_GROUP == kueue_schema.MAX_PER_GROUP
    assert (limits.MAX_NODE_LABELS, limits.MAX_TOLERATIONS) == (kueue_schema.MAX_NODE_LABELS, 8)


@pytest.mark.parametrize("text", ["16Gi", "1", "0.5", "+2k", "1e3", "500m", ".5", "2E-1"])
def test_the_quantity_pattern_takes_kubernetes_quantities(text):
    obj = _valid("ClusterQueue")
    _quota(obj)["nominalQuota"] = text
    assert kueue_check.problems(obj) == []


SCHEMA_CASES = {
    "typo": ("ClusterQueue", lambda o: o["spec"].update(cohrt="x"), "'cohrt' was unexpected"),
    "groups-17": ("ClusterQueue", lambda o: o["spec"].update(resourceGroups=[_group(o)] * 17), "is too long"),
    "covered-17": (
        "ClusterQueue",
        lambda o: _group(o).update(coveredResources=[f"example.com/r{i}" for i in range(17)]),
        "is too long",
    ),
    "flavors-17": ("ClusterQueue", lambda o: _group(o).update(flavors=_group(o)["flavors"] * 17), "is too long"),
    "resources-17": (
        "ClusterQueue",
        lambda o: _group(o)["flavors"][0].update(resources=[_quota(o)] * 17),
        "is too long",
    ),
    "no-groups": ("ClusterQueue", lambda o: _group(o).update(flavors=[]), "should be non-empty"),
    "flavor-name": ("ClusterQueue", lambda o: _group(o)["flavors"][0].update(name="Not_A_Name"), "does not match"),
    "cohort-name": ("ClusterQueue", lambda o: o["spec"].update(cohort="a" * 254), "is too long"),
    "reclaim": ("ClusterQueue", lambda o: o["spec"]["preemption"].update(reclaimWithinCohort="Always"), "is not one"),
    "borrow-policy": (
        "ClusterQueue",
        lambda o: o["spec"]["preemption"].update(borrowWithinCohort={"policy": "Always"}),
        "is not one of",
    ),
    "queueing": ("ClusterQueue", lambda o: o["spec"].update(queueingStrategy="FIFO"), "is not one of"),
    "quantity": ("ClusterQueue", lambda o: _quota(o).update(nominalQuota="4 slices"), "is not valid under any"),
    "quantity-type": ("ClusterQueue", lambda o: _quota(o).update(nominalQuota=1.5), "is not valid under any"),
    "no-quota": ("ClusterQueue", lambda o: _quota(o).pop("nominalQuota"), "'nominalQuota' is a required property"),
    "selector": ("ClusterQueue", lambda o: o["spec"].update(namespaceSelector={"matchNames": []}), "unexpected"),
    "cluster-scoped": ("ClusterQueue", lambda o: o["metadata"].update(namespace="t"), "'namespace' was unexpected"),
    "api-version": ("ClusterQueue", lambda o: o.update(apiVersion="kueue.x-k8s.io/v1beta2"), "not a Kueue object"),
    "node-taints": ("ResourceFlavor", lambda o: o["spec"].update(nodeTaints=[]), "'nodeTaints' was unexpected"),
    "labels-9": (
        "ResourceFlavor",
        lambda o: o["spec"].update(nodeLabels={f"k{i}": "v" for i in range(9)}),
        "has too many properties",
    ),
    "label-value": ("ResourceFlavor", lambda o: o["spec"]["nodeLabels"].update(k=1), "is not of type 'string'"),
    "tolerations-9": ("ResourceFlavor", lambda o: o["spec"].update(tolerations=[_toleration(o)] * 9), "is too long"),
    "seconds": ("ResourceFlavor", lambda o: _toleration(o).update(tolerationSeconds="30"), "not of type 'integer'"),
    "flavor-name-metadata": ("ResourceFlavor", lambda o: o["metadata"].update(name="-mix"), "does not match"),
    "no-namespace": ("LocalQueue", lambda o: o["metadata"].pop("namespace"), "'namespace' is a required property"),
    "namespace-64": ("LocalQueue", lambda o: o["metadata"].update(namespace="a" * 64), "is too long"),
    "cluster-queue": ("LocalQueue", lambda o: o["spec"].update(clusterQueue="Team A"), "does not match"),
    "no-cluster-queue": ("LocalQueue", lambda o: o["spec"].pop("clusterQueue"), "'clusterQueue' is a required"),
}


@pytest.mark.parametrize("kind, mutate, expected", SCHEMA_CASES.values(), ids=SCHEMA_CASES.keys())
def test_the_schema_refuses_a_broken_object(kind, mutate, expected):
    found = _broken(kind, mutate)
    assert any(p.startswith("schema: ") and expected in p for p in found), found


def _duplicate_quota(obj):
    """A flavor quoting one resource twice, with one more covered resource so the counts still agree."""
    _group(obj)["coveredResources"].append("example.com/other")
    for flavor in _group(obj)["flavors"]:
        flavor["resources"].append(copy.deepcopy(flavor["resources"][0]))


CEL_CASES = {
    "borrowing-without-cohort": (
        "ClusterQueue",
        lambda o: (o["spec"].pop("cohort"), _quota(o).update(borrowingLimit=1)),
        "a borrowingLimit needs a cohort",
    ),
    "borrow-without-reclaim": (
        "ClusterQueue",
        lambda o: o["spec"].update(preemption={"borrowWithinCohort": {"policy": "LowerPriority"}}),
        "needs reclaimWithinCohort other than Never",
    ),
    "resource-count": (
        "ClusterQueue",
        lambda o: _group(o)["coveredResources"].append("example.com/other"),
        "one quota per covered resource",
    ),
    "flavor-twice": (
        "ClusterQueue",
        lambda o: _group(o)["flavors"].append(copy.deepcopy(_group(o)["flavors"][0])),
        "a flavor appears once",
    ),
    "resource-twice": ("ClusterQueue", _duplicate_quota, "a resource appears once"),
    "no-key": (
        "ResourceFlavor",
        lambda o: (_toleration(o).pop("key"), _toleration(o).update(operator="Equal")),
        "no key",
    ),
    "seconds-not-no-execute": (
        "ResourceFlavor",
        lambda o: _toleration(o).update(tolerationSeconds=30),
        "NoExecute only",
    ),
    "operator": ("ResourceFlavor", lambda o: _toleration(o).update(operator="Matches"), "is Equal or Exists"),
    "exists-with-value": ("ResourceFlavor", lambda o: _toleration(o).update(value="present"), "has no value"),
    "effect": ("ResourceFlavor", lambda o: _toleration(o).update(effect="Evict"), "effect is NoSchedule"),
}


@pytest.mark.parametrize("kind, mutate, expected", CEL_CASES.values(), ids=CEL_CASES.keys())
def test_each_cel_rule_refuses_what_breaks_it_and_only_that(kind, mutate, expected):
    obj = _valid(kind)
    mutate(obj)
    assert [rule.message for rule, _ in kueue_check.failed_rules(obj)] == [
        r.message for r in kueue_schema.CEL_RULES if expected in r.message
    ]
    found = kueue_check.problems(obj)
    assert found and all(p.startswith("CEL at spec") and expected in p for p in found), found


def test_every_cel_rule_has_a_case_that_breaks_it():
    broken = {
        r.message for r in kueue_schema.CEL_RULES for _, _, expected in CEL_CASES.values() if expected in r.message
    }
    assert broken == {r.message for r in kueue_schema.CEL_RULES}


def _swap_quotas(obj):
    for flavor in _group(obj)["flavors"]:
        flavor["resources"].reverse()


WEBHOOK_CASES = {
    "resource-in-two-groups": (
        "ClusterQueue",
        lambda o: o["spec"]["resourceGroups"].append(copy.deepcopy(_group(o))),
        "coveredResources: duplicate",
    ),
    "quotas-out-of-order": ("ClusterQueue", _swap_quotas, "must match nvidia.com/mig-1g.5gb"),
    "negative-quota": ("ClusterQueue", lambda o: _quota(o).update(nominalQuota="-1"), "negative nominalQuota"),
    "lending-without-cohort": (
        "ClusterQueue",
        lambda o: (o["spec"].pop("cohort"), _quota(o).update(lendingLimit=1)),
        "lendingLimit needs a cohort",
    ),
    "resource-name": (
        "ClusterQueue",
        lambda o: (_group(o)["coveredResources"].__setitem__(0, "mig 1g"), _quota(o).update(name="mig 1g")),
        "is not a qualified resource name",
    ),
    "label-key": ("ResourceFlavor", lambda o: o["spec"]["nodeLabels"].update({"bad key": "v"}), "is not a label key"),
    "label-value": ("ResourceFlavor", lambda o: o["spec"]["nodeLabels"].update(k="v" * 64), "is not a label value"),
}


@pytest.mark.parametrize("kind, mutate, expected", WEBHOOK_CASES.values(), ids=WEBHOOK_CASES.keys())
def test_the_webhook_refuses_what_the_schema_and_cel_let_through(kind, mutate, expected):
    found = _broken(kind, mutate)
    assert found and all(p.startswith("webhook: ") for p in found), found
    assert any(expected in p for p in found), found
