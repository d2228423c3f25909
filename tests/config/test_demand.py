"""The demand file's shape: one problem per field, quantities by Kubernetes' grammar, known clouds, unique names,
and the file read through the untrusted kit (a missing file or bad YAML is a problem, not a traceback)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gpupools.config import ConfigError
from gpupools.config.demand import parse_demand, read_demand_file


def _demand(**changes):
    base = {"cloud": "aws", "region": "us-east-1", "workloads": [{"name": "chat", "slice": "1g.5gb", "count": 2}]}
    return {**base, **changes}


def _problems(raw) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as raised:
        parse_demand(raw)
    return [(p.field, p.message) for p in raised.value.problems]


def test_memory_is_a_kubernetes_quantity_in_gb():
    demand = parse_demand(_demand(workloads=[{"name": "tune", "memory": "18Gi", "count": 4}]))
    assert demand.workloads[0].memory_gb == Decimal(18 * 2**30) / Decimal(10**9)
    assert demand.mig_manager == "operator"


@pytest.mark.parametrize(
    ("raw", "field", "text"),
    [
        (_demand(cloud="gcp"), "cloud", "'gcp' is not a cloud gpupools knows"),
        (_demand(workloads=[]), "workloads", "at least 1 item"),
        (_demand(workloads=[{"name": "a", "memory": "-1Gi", "count": 1}]), "workloads[0].memory", "not a positive"),
        (_demand(workloads=[{"name": "a", "gpu": "half", "count": 1}]), "workloads[0].gpu", "'whole'"),
        (_demand(workloads=[{"name": "a", "slice": "1g.5gb", "count": "3"}]), "workloads[0].count", "integer"),
        (_demand(migManager="aks"), "migManager", "'operator' or 'cloud'"),
        (
            _demand(workloads=[{"name": "a", "gpu": "whole", "count": 1}, {"name": "a", "gpu": "whole", "count": 1}]),
            "demand",
            "repeated: a",
        ),
    ],
)
def test_each_problem_names_its_field(raw, field, text):
    problems = _problems(raw)
    assert any(found == field and text in message for found, message in problems), problems


def test_a_document_that_is_not_a_mapping():
    assert _problems(["cloud"]) == [("demand", "must be a mapping with cloud, region and workloads, got list")]


def test_files_go_through_the_kit(tmp_path):
    with pytest.raises(ConfigError) as raised:
        read_demand_file(tmp_path / "missing.yaml")
    assert "missing.yaml" in str(raised.value.problems[0])
    bad = tmp_path / "bad.yaml"
    bad.write_text("cloud: aws\ncloud: azure\n")
    with pytest.raises(ConfigError) as raised:
        read_demand_file(bad)
    assert "cloud" in str(raised.value.problems[0])
