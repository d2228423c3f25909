"""The Kueue Configuration stanza ``fit --kueue`` prints under the mixed strategy: valid by Kueue's documented
Configuration fields, and consistent with the queues it goes with.

No Configuration schema is in ../shared (Kueue ships none: it is a file its manager reads, not a CRD), so the schema
below is written from the documented type as read: kubernetes-sigs/kueue ``apis/config/v1beta1/configuration_types.go``
(``Resources``: ``excludeResourcePrefixes``, ``transformations``; ``ResourceTransformation``: ``input``, ``strategy``
``Retain | Replace``, ``outputs`` a ResourceList) and ``pkg/config/validation.go`` (``validateResourceTransformations``:
a strategy of the two, each input once), Kueue v0.19.2 as read.
"""

from __future__ import annotations

import re

import pytest

from gpupools.config.demand import parse_demand
from gpupools.fit.answer import fit_demand
from gpupools.fit.kueue_quotas import MIG_MEMORY, fit_kueue
from gpupools.price_lists.book import current_price_book
from support import kueue_crd

jsonschema = pytest.importorskip("jsonschema")

QUANTITY = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
RESOURCE = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)
CONFIGURATION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["apiVersion", "kind"],
    "properties": {
        "apiVersion": {"enum": ["config.kueue.x-k8s.io/v1beta1", "config.kueue.x-k8s.io/v1beta2"]},
        "kind": {"const": "Configuration"},
        "resources": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "excludeResourcePrefixes": {"type": "array", "items": {"type": "string"}},
                "transformations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["input"],
                        "properties": {
                            "input": {"type": "string", "pattern": RESOURCE},
                            "strategy": {"enum": ["Retain", "Replace"]},
                            "outputs": {
                                "type": "object",
                                "propertyNames": {"pattern": RESOURCE},
                                "additionalProperties": {"type": "string", "pattern": QUANTITY},
                            },
                        },
                    },
                },
            },
        },
    },
}


def _validation(configuration) -> list[str]:
    """``validateResourceTransformations``: each input once (the strategy's enum is in the schema)."""
    inputs = [t["input"] for t in configuration.get("resources", {}).get("transformations", [])]
    return [f"duplicate input {name}" for name in sorted({n for n in inputs if inputs.count(n) > 1})]


def _fit(workloads, **demand):
    raw = {"cloud": "aws", "region": "us-east-1", "size": "p4d.24xlarge", "workloads": workloads}
    raw.update(demand)
    demand_model = parse_demand(raw)
    return fit_kueue(demand_model, fit_demand(demand_model, current_price_book(), 5.0).chosen)


WORKLOADS = [
    {"name": "chat", "slice": "1g.5gb", "count": 9, "team": "chat"},
    {"name": "big", "slice": "3g.20gb", "count": 2, "team": "research"},
    {"name": "mid", "slice": "2g.10gb", "count": 3},
    {"name": "train", "gpu": "whole", "count": 1, "team": "research"},
]


def test_the_stanza_has_only_documented_fields_and_charges_each_slice_its_gb():
    kueue = _fit(WORKLOADS)
    configuration = kueue.configuration
    assert configuration is not None
    jsonschema.Draft202012Validator(CONFIGURATION).validate(configuration)
    assert _validation(configuration) == []
    offered = {
        q["name"]
        for o in kueue.objects
        if o["kind"] == "ClusterQueue"
        for g in o["spec"]["resourceGroups"]
        for f in g["flavors"]
        for q in f["resources"]
    }
    charged = {t["input"]: t for t in configuration["resources"]["transformations"]}
    for name, transformation in charged.items():
        gb = re.fullmatch(r"nvidia\.com/mig-\d+g\.(\d+)gb", name).group(1)
        assert transformation == {"input": name, "strategy": "Replace", "outputs": {MIG_MEMORY: gb}}
    assert {"nvidia.com/mig-1g.5gb", "nvidia.com/mig-3g.20gb", "nvidia.com/mig-2g.10gb"} <= set(charged)
    assert not any(r.startswith("nvidia.com/mig-") for r in offered)  # replaced: a queue never sees a slice
    assert offered == {MIG_MEMORY, "nvidia.com/gpu"}


def test_one_memory_quota_covers_every_slice_size():
    kueue = _fit(WORKLOADS)
    research = next(o for o in kueue.objects if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == "research")
    memory = sum(
        q["nominalQuota"]
        for g in research["spec"]["resourceGroups"]
        for f in g["flavors"]
        for q in f["resources"]
        if q["name"] == MIG_MEMORY
    )
    assert memory == 2 * 20
    default = next(o for o in kueue.objects if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == "default")
    assert any(
        q["nominalQuota"] == 3 * 10
        for g in default["spec"]["resourceGroups"]
        for f in g["flavors"]
        for q in f["resources"]
    )


def test_single_strategy_charges_nothing():
    azure = {"cloud": "azure", "region": "southcentralus", "size": "Standard_ND96asr_v4", "migManager": "cloud"}
    kueue = _fit([{"name": "chat", "slice": "1g.5gb", "count": 9, "team": "chat"}], **azure)
    assert kueue.configuration is None
    assert all(
        q["name"] == "nvidia.com/gpu"
        for o in kueue.objects
        if o["kind"] == "ClusterQueue"
        for g in o["spec"]["resourceGroups"]
        for f in g["flavors"]
        for q in f["resources"]
    )


@pytest.mark.skipif(kueue_crd.CRDS is None, reason="needs ../shared/reference/kueue/crds")
def test_the_memory_quotas_pass_the_real_crds():
    for obj in _fit(WORKLOADS).objects:
        assert kueue_crd.problems(obj) == [], obj


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda c: c["resources"]["transformations"][0].update(strategy="Drop"), "is not one of"),
        (lambda c: c["resources"].update(transforms=[]), "'transforms' was unexpected"),
        (lambda c: c["resources"]["transformations"][0]["outputs"].update({MIG_MEMORY: "5 GB"}), "does not match"),
    ],
)
def test_the_configuration_schema_refuses_a_broken_stanza(mutate, expected):
    configuration = _fit(WORKLOADS).configuration
    mutate(configuration)
    errors = [e.message for e in jsonschema.Draft202012Validator(CONFIGURATION).iter_errors(configuration)]
    assert any(expected in e for e in errors), errors


def test_a_repeated_input_is_refused():
    configuration = _fit(WORKLOADS).configuration
    transformations = configuration["resources"]["transformations"]
    transformations.append(dict(transformations[0]))
    assert _validation(configuration) == [f"duplicate input {transformations[0]['input']}"]
