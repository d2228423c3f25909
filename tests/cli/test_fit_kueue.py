"""``gpupools fit --kueue``: the objects pass the Kueue checks of ``tests/support/kueue_check``, each flavor is what
``gpupools.kueue.pool_flavor`` makes of the same pool in the resolved stack, and each team's quota is its demand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpupools.kueue import kueue_objects, pool_flavor
from gpupools.resolve.stack_loader import load_stack
from support.cli import run_cli
from support.kueue_check import problems

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "demand.yaml"
CLUSTERS = {
    "aws": {"name": "fit", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
    "azure": {
        "name": "fit",
        "resourceGroup": "fit-rg",
        "location": "southcentralus",
        "systemPool": {"size": "Standard_D4s_v5"},
    },
}


def _answer(tmp_path: Path, **changes) -> dict:
    demand = {**yaml.safe_load(EXAMPLE.read_text()), **changes}
    path = tmp_path / "demand.yaml"
    path.write_text(yaml.safe_dump(demand))
    run = run_cli("fit", str(path), "--json", "--kueue")
    assert run.code == 0, run.err
    return json.loads(run.out)


@pytest.mark.parametrize(
    "changes",
    [{}, {"cloud": "azure", "region": "southcentralus", "size": "Standard_ND96asr_v4", "migManager": "cloud"}],
    ids=["eks-operator", "aks-cloud"],
)
def test_flavors_match_the_resolved_pools_and_quotas_the_demand(tmp_path, changes):
    answer = _answer(tmp_path, **changes)
    objects = answer["kueue"]
    assert all(problems(obj) == [] for obj in objects), [problems(obj) for obj in objects]
    stack = load_stack(
        {
            "gpupools:cloud": answer["demand"]["cloud"],
            "gpupools:cluster": CLUSTERS[answer["demand"]["cloud"]],
            "gpupools:gpuPools": answer["stack"]["gpuPools"],
            "gpupools:gpuSoftware": answer["stack"]["gpuSoftware"],
        }
    )
    expected = [o for o in kueue_objects([pool_flavor(p) for p in stack.pools], []) if o["kind"] == "ResourceFlavor"]
    assert [o for o in objects if o["kind"] == "ResourceFlavor"] == expected
    quotas: dict[str, dict[str, int]] = {}
    for queue in (o for o in objects if o["kind"] == "ClusterQueue"):
        team = quotas.setdefault(queue["metadata"]["name"], {})
        for group in queue["spec"]["resourceGroups"]:
            for flavor in group["flavors"]:
                for resource in flavor["resources"]:
                    team[resource["name"]] = team.get(resource["name"], 0) + resource["nominalQuota"]
    teams = {w["team"] for w in answer["demand"]["workloads"] if "team" in w}
    assert set(quotas) == teams
    for team in teams:
        replicas = sum(w["count"] for w in answer["demand"]["workloads"] if w.get("team") == team)
        assert sum(quotas[team].values()) == replicas


def test_the_text_report_ends_with_the_yaml(tmp_path):
    run = run_cli("fit", str(EXAMPLE), "--kueue")
    assert run.code == 0, run.err
    stream = run.out.split("# Kueue objects", 1)[1].split("\n", 1)[1]
    kinds = [doc["kind"] for doc in yaml.safe_load_all(stream)]
    pools = [line for line in run.out.splitlines() if line.startswith("  pool ")]
    assert kinds.count("ResourceFlavor") == len(pools) > 0 and "ClusterQueue" in kinds and "LocalQueue" in kinds
