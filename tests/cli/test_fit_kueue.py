"""``gpupools fit --kueue``: the objects pass the Kueue checks of ``tests/support/kueue_check`` (and Kueue v0.19.2's
own CRDs where ../shared is present), each flavor is what ``gpupools.kueue.pool_flavor`` makes of the same pool in
the resolved stack, each team's quota is its demand (workloads without a team: team ``default``), a MIG slice
charged as the GB its profile's name says under the mixed strategy; and stdout is a YAML stream of Kubernetes
objects only, so ``| kubectl apply -f -`` takes it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from gpupools.kueue import kueue_objects, pool_flavor
from gpupools.resolve.stack_loader import load_stack
from support.cli import run_cli
from support.kueue_check import all_problems

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
    assert all(all_problems(obj) == [] for obj in objects), [all_problems(obj) for obj in objects]
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
    mixed = answer["stack"]["gpuSoftware"]["migStrategy"] == "mixed"
    expected: dict[str, dict[str, int]] = {}
    for workload in answer["demand"]["workloads"]:
        profile = answer["profiles"].get(workload["name"])
        wanted = expected.setdefault(workload.get("team", "default"), {})
        if profile is not None and mixed:  # charged as its memory: the GB in the profile's name
            gb = int(re.fullmatch(r"\d+g\.(\d+)gb(\+me)?", profile).group(1))
            wanted["gpupools.io/mig-memory-gb"] = wanted.get("gpupools.io/mig-memory-gb", 0) + gb * workload["count"]
        else:
            wanted["nvidia.com/gpu"] = wanted.get("nvidia.com/gpu", 0) + workload["count"]
    assert {team: {r: n for r, n in q.items() if n} for team, q in quotas.items()} == expected
    configuration = answer["kueueConfiguration"]
    if mixed:
        charged = {t["input"]: t["outputs"] for t in configuration["resources"]["transformations"]}
        for profile in set(answer["profiles"].values()):
            gb = re.fullmatch(r"\d+g\.(\d+)gb", profile).group(1)
            assert charged[f"nvidia.com/mig-{profile}"] == {"gpupools.io/mig-memory-gb": gb}
    else:
        assert configuration is None


def test_stdout_is_a_yaml_stream_of_kubernetes_objects_only(tmp_path):
    run = run_cli("fit", str(EXAMPLE), "--kueue")
    assert run.code == 0, run.err
    documents = list(yaml.safe_load_all(run.out))
    assert documents and all(isinstance(d, dict) for d in documents)
    for document in documents:
        assert set(document) <= {"apiVersion", "kind", "metadata", "spec"}, document
        assert re.fullmatch(r"[a-z0-9.-]+/v[0-9a-z]+", document["apiVersion"]) and document["kind"][0].isupper()
        assert isinstance(document["metadata"].get("name"), str)
    kinds = [doc["kind"] for doc in documents]
    pools = [line for line in run.err.splitlines() if line.startswith("  pool ")]
    assert kinds.count("ResourceFlavor") == len(pools) > 0 and "ClusterQueue" in kinds and "LocalQueue" in kinds
    assert run.err.startswith("demand (aws, us-east-1):") and "kind: Configuration" in run.err
    assert run_cli("fit", str(EXAMPLE), "-o", "kueue").out == run.out


def test_workloads_without_a_team_go_to_the_default_queue(tmp_path):
    answer = _answer(tmp_path)
    untagged = [w for w in answer["demand"]["workloads"] if "team" not in w]
    assert untagged
    names = {(o["kind"], o["metadata"]["name"], o["metadata"].get("namespace")) for o in answer["kueue"]}
    assert {("ClusterQueue", "default", None), ("LocalQueue", "default", "default")} <= names


def test_team_limits_reach_every_quota_of_the_teams_queue(tmp_path):
    answer = _answer(tmp_path, teams={"research": {"borrowingLimit": 3, "lendingLimit": 1}})
    queues = {o["metadata"]["name"]: o for o in answer["kueue"] if o["kind"] == "ClusterQueue"}
    for name, queue in queues.items():
        for group in queue["spec"]["resourceGroups"]:
            for flavor in group["flavors"]:
                for quota in flavor["resources"]:
                    if name == "research":
                        assert quota["borrowingLimit"] == 3
                        assert quota["lendingLimit"] == min(1, quota["nominalQuota"])
                    else:
                        assert "borrowingLimit" not in quota and "lendingLimit" not in quota
    assert all(all_problems(obj) == [] for obj in answer["kueue"])


@pytest.mark.parametrize(
    "teams, message",
    [
        ({"nobody": {"borrowingLimit": 1}}, "teams: nobody has no workload"),
        ({"research": {"lendingLimit": -1}}, "greater than or equal to 0"),
        ({"research": {"borrow": 1}}, "unknown key 'borrow'"),
    ],
)
def test_bad_team_limits_are_one_line_each(tmp_path, teams, message):
    demand = {**yaml.safe_load(EXAMPLE.read_text()), "teams": teams}
    path = tmp_path / "demand.yaml"
    path.write_text(yaml.safe_dump(demand))
    run = run_cli("fit", str(path), "--kueue")
    assert run.code == 2 and message in run.err and not run.out
