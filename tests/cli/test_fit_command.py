"""``gpupools fit``: its stack is accepted by ``check`` and ``plan`` as it is, and the capacity ``check`` computes
for that stack holds every replica of the demand; the text report carries its parts; bad demand files get one
``error:`` line per problem naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpupools.cli import main
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "demand.yaml"
CLUSTERS = {
    "aws": ({"name": "fit", "region": "us-east-1", "systemPool": {"size": "m6i.large"}}, {"aws:region": "us-east-1"}),
    "azure": (
        {
            "name": "fit",
            "resourceGroup": "fit-rg",
            "location": "southcentralus",
            "systemPool": {"size": "Standard_D4s_v5"},
        },
        {"azure-native:location": "southcentralus"},
    ),
}


def _fit(path: Path) -> dict:
    run = run_cli("fit", str(path), "--json")
    assert run.code == 0 and run.err == "", run.err
    return json.loads(run.out)


def _stack_file(tmp_path: Path, answer: dict) -> Path:
    cloud = answer["demand"]["cloud"]
    cluster, provider = CLUSTERS[cloud]
    config = {
        **provider,
        "gpupools:cloud": cloud,
        "gpupools:cluster": cluster,
        "gpupools:gpuPools": answer["stack"]["gpuPools"],
        "gpupools:gpuSoftware": answer["stack"]["gpuSoftware"],
    }
    path = tmp_path / "Pulumi.fit.yaml"
    path.write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return path


def _held(check: dict, stack: dict) -> dict[str, int]:
    """Devices per MIG profile (``nvidia.com/mig-<p>``, or ``nvidia.com/gpu`` of a one-profile pool under the single
    strategy) and whole GPUs (``whole``: ``nvidia.com/gpu`` otherwise, also a node's GPUs left whole beside cut
    ones), from check's capacity table."""
    pools = {pool["name"]: pool for pool in stack["gpuPools"]}
    held: dict[str, int] = {}
    for row in check["capacity"]:
        layout = pools[row["pool"]].get("mig")
        for resource, count in row["total"].items():
            if resource.startswith("nvidia.com/mig-"):
                key = resource.removeprefix("nvidia.com/mig-")
            elif resource == "nvidia.com/gpu" and (layout is None or stack["gpuSoftware"]["migStrategy"] != "single"):
                key = "whole"
            else:
                assert resource == "nvidia.com/gpu" and stack["gpuSoftware"]["migStrategy"] == "single"
                (key,) = set(check["_profiles"].values())  # single: the stack's one profile, as nvidia.com/gpu
            held[key] = held.get(key, 0) + count
    return held


def _needed(answer: dict) -> dict[str, int]:
    needed: dict[str, int] = {}
    for workload in answer["demand"]["workloads"]:
        key = answer["profiles"].get(workload["name"], "whole")
        needed[key] = needed.get(key, 0) + workload["count"]
    return needed


def _assert_check_covers(tmp_path: Path, answer: dict) -> None:
    stack_path = _stack_file(tmp_path, answer)
    run = run_cli("check", "--config", str(stack_path), "--json")
    assert run.code == 0, run.err
    check = {**json.loads(run.out), "_profiles": answer["profiles"]}
    held, needed = _held(check, answer["stack"]), _needed(answer)
    assert all(held.get(key, 0) >= count for key, count in needed.items()), (held, needed)


def test_the_example_fits_and_its_stack_passes_check_and_plan(tmp_path):
    answer = _fit(EXAMPLE)
    assert answer["lowerBound"]["gpus"] <= answer["gpus"] <= answer["greedy"]["gpus"]
    assert answer["proven"] and not answer["stoppedByTimeLimit"]
    assert answer["nodes"] * answer["gpusPerNode"] == answer["gpus"] + answer["spareGpus"]
    assert sum(run["gpus"] for run in answer["perGpu"]) == answer["gpus"]
    per_workload: dict[str, int] = {}
    for run in answer["perGpu"]:
        for name, replicas in run["holds"].items():
            per_workload[name] = per_workload.get(name, 0) + replicas * run["gpus"]
    assert per_workload == {w["name"]: w["count"] for w in answer["demand"]["workloads"]}
    assert answer["monthly"] == pytest.approx(answer["nodes"] * answer["nodePrice"]["perHour"] * 730, abs=0.01)
    _assert_check_covers(tmp_path, answer)
    plan = run_cli("plan", "--config", str(_stack_file(tmp_path, answer)))
    assert plan.code == 0, plan.err
    assert all(pool["name"] in plan.out for pool in answer["stack"]["gpuPools"])


@pytest.mark.parametrize("manager", ["operator", "cloud"])
def test_azure_stacks_pass_check_for_either_mig_manager(tmp_path, manager):
    demand = yaml.safe_load(EXAMPLE.read_text())
    demand.update(cloud="azure", region="southcentralus", size="Standard_ND96asr_v4", migManager=manager)
    path = tmp_path / "demand.yaml"
    path.write_text(yaml.safe_dump(demand))
    answer = _fit(path)
    if manager == "cloud":  # AKS: one gpuInstanceProfile per pool, every GPU fully cut
        for pool in answer["pools"]:
            ((group,),) = (pool["gpusByLayout"],)  # every GPU of a pool cut alike
            assert group["layout"] == "whole" or len(group["layout"]) == 1
        assert all("profile" in pool["mig"] for pool in answer["stack"]["gpuPools"] if "mig" in pool)
    _assert_check_covers(tmp_path, answer)


def test_without_a_size_the_cheapest_wins_and_the_runner_up_is_shown(tmp_path):
    answer = _fit(EXAMPLE)
    assert "size" not in answer["demand"]
    runner = answer["runnerUp"]
    assert runner is not None and runner["size"] != answer["size"]
    assert answer["monthly"] <= runner["monthly"]
    assert all(answer["monthly"] <= other["monthly"] for other in answer["otherSizes"] if other["monthly"])


def test_a_fixed_size_is_the_only_one_fitted(tmp_path):
    demand = {**yaml.safe_load(EXAMPLE.read_text()), "size": "p4d.24xlarge"}
    path = tmp_path / "demand.yaml"
    path.write_text(yaml.safe_dump(demand))
    answer = _fit(path)
    assert (answer["size"], answer["gpu"], answer["runnerUp"], answer["otherSizes"]) == (
        "p4d.24xlarge",
        "A100-40GB",
        None,
        [],
    )
    assert answer["profiles"]["tune"] == "3g.20gb"  # 18Gi = 19.3 GB: the 20 GB profile with the fewest slices
    _assert_check_covers(tmp_path, answer)


def test_the_text_report_has_its_parts():
    run = run_cli("fit", str(EXAMPLE))
    assert run.code == 0, run.err
    for part in ("demand (aws, us-east-1):", "pool mig1:", "lower bound from slices", "USD/month", "greedy", "MPS"):
        assert part in run.out, part


def test_bad_demand_files_name_each_field(tmp_path):
    path = tmp_path / "demand.yaml"
    path.write_text(
        "cloud: aws\nregion: us-east-1\nworkloads:\n"
        "  - {name: a, slice: 1g.5gb, memory: 5Gi, count: 1}\n"
        "  - {name: b, memory: lots, count: 1}\n"
        "  - {name: c, gpu: whole, count: 0, color: red}\n"
    )
    run = run_cli("fit", str(path))
    assert run.code == 2 and run.out == ""
    assert run.lines == [
        "error: workloads[0]: set exactly one of slice, memory or gpu (got slice, memory)",
        "error: workloads[1].memory: 'lots' is not a Kubernetes quantity (digits, an optional decimal point, and a "
        "suffix such as k, Ki or e3)",
        "error: workloads[2].color: unknown key 'color'",
        "error: workloads[2].count: Input should be greater than or equal to 1",
    ]


def test_a_profile_the_size_lacks_is_refused(tmp_path):
    path = tmp_path / "demand.yaml"
    path.write_text(
        "cloud: aws\nregion: us-east-1\nsize: p4d.24xlarge\nworkloads:\n  - {name: a, slice: 1g.18gb, count: 1}\n"
    )
    run = run_cli("fit", str(path))
    assert run.code == 2
    assert "1g.18gb is not a MIG profile offered on A100-40GB" in run.err


@pytest.mark.parametrize(
    ("value", "expected"),
    [("nan", "0.1 to 600"), ("inf", "0.1 to 600"), ("-1", "0.1 to 600"), ("0", "0.1 to 600"), ("ten", "a number")],
)
def test_a_time_limit_that_is_not_0_1_to_600_seconds_is_one_error_line(value, expected, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["fit", str(EXAMPLE), "--time-limit", value])
    captured = capsys.readouterr()
    assert exited.value.code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and "--time-limit" in captured.err and expected in captured.err


def test_the_example_is_one_p4de_node_with_cut_and_whole_gpus(tmp_path):
    answer = _fit(EXAMPLE)  # issue 35: the old answer was 2 nodes, the cut GPUs and the whole ones apart
    assert (answer["size"], answer["nodes"], answer["proven"]) == ("p4de.24xlarge", 1, True)
    ((pool),) = answer["stack"]["gpuPools"]
    groups = pool["mig"]["layout"]
    assert sum(group["gpus"] for group in groups) == 8 and {"gpus": 2, "whole": True} in groups
    plan = run_cli("plan", "--config", str(_stack_file(tmp_path, answer)))
    assert plan.code == 0, plan.err


def test_the_issues_p4d_demand_is_one_node_through_check_and_plan(tmp_path):
    path = tmp_path / "demand.yaml"
    path.write_text(
        "cloud: aws\nregion: us-east-1\nsize: p4d.24xlarge\nworkloads:\n"
        "  - {name: a, slice: 2g.10gb, count: 7}\n  - {name: b, slice: 1g.5gb, count: 4}\n"
        "  - {name: c, slice: 4g.20gb, count: 2}\n"
    )
    answer = _fit(path)  # the old answer: 4 GPUs on 3 nodes, "proven minimal"
    assert (answer["nodes"], answer["proven"]) == (1, True)
    _assert_check_covers(tmp_path, answer)
    plan = run_cli("plan", "--config", str(_stack_file(tmp_path, answer)))
    assert plan.code == 0, plan.err


def test_objective_gpus_ranks_sizes_by_gpus_first():
    bill, gpus = _fit(EXAMPLE), json.loads(run_cli("fit", str(EXAMPLE), "--json", "--objective", "gpus").out)
    assert gpus["gpus"] <= bill["gpus"] and bill["monthly"] <= gpus["monthly"]
    assert all(gpus["gpus"] <= other["gpus"] for other in gpus["otherSizes"])


def test_whole_gpus_alone_fit_sizes_without_mig(tmp_path):
    path = tmp_path / "demand.yaml"
    path.write_text("cloud: aws\nregion: us-east-1\nworkloads:\n  - {name: t, gpu: whole, count: 3}\n")
    answer = _fit(path)  # GPUs without MIG have no slices: nothing may divide by them
    assert answer["gpus"] == 3 and answer["proven"] and answer["stack"]["gpuSoftware"]["migStrategy"] == "none"
    _assert_check_covers(tmp_path, answer)
