"""``gpupools fit DEMAND --config STACK``: day two. A demand the stack holds changes nothing; one more slice type is
a re-cut (capacity offline without surge, a new node group created first with it, by plan --base's own rule) when
that spares a new node, else a new node at its price;
the stack entries after the change pass ``check``, whose capacity holds the demand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from support.cli import run_cli

STACK = {
    "aws:region": "us-east-1",
    "gpupools:cloud": "aws",
    "gpupools:cluster": {"name": "day", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
    "gpupools:gpuSoftware": {"installer": "gpu-operator", "migStrategy": "mixed"},
    "gpupools:gpuPools": [{"name": "infer", "size": "p4de.24xlarge", "count": 1, "mig": {"layout": "all-1g.10gb"}}],
}

# The same pool without surge: a layout change re-cuts its live node (a surge pool's is a new node group first).
RECREATE = {
    **STACK,
    "gpupools:gpuPools": [{**STACK["gpupools:gpuPools"][0], "rotation": "recreate"}],
}

# AKS cuts this pool itself (gpuInstanceProfile, fixed at creation): nothing re-cuts it in place.
AKS_PROFILE = {
    "azure-native:location": "southcentralus",
    "gpupools:cloud": "azure",
    "gpupools:cluster": {
        "name": "day",
        "resourceGroup": "day-rg",
        "location": "southcentralus",
        "systemPool": {"size": "Standard_D4s_v5"},
    },
    "gpupools:gpuSoftware": {"installer": "device-plugin", "migStrategy": "single"},
    "gpupools:gpuPools": [
        {"name": "infer", "size": "Standard_ND96amsr_A100_v4", "count": 1, "mig": {"profile": "MIG1g"}}
    ],
}


def _write(tmp_path: Path, config: dict, name: str = "day") -> Path:
    path = tmp_path / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return path


def _demand(tmp_path: Path, *workloads: dict, cloud: str = "aws") -> Path:
    path = tmp_path / "demand.yaml"
    region = "us-east-1" if cloud == "aws" else "southcentralus"
    path.write_text(yaml.safe_dump({"cloud": cloud, "region": region, "workloads": list(workloads)}))
    return path


def _day_two(tmp_path: Path, *workloads: dict, stack: dict = STACK) -> dict:
    run = run_cli("fit", str(_demand(tmp_path, *workloads)), "--config", str(_write(tmp_path, stack)), "--json")
    assert run.code == 0, run.err
    return json.loads(run.out)


def _check_holds(tmp_path: Path, answer: dict, needed: dict[str, int], stack: dict = STACK) -> None:
    """The entries after the change, in the stack file in place of the old ones, pass check, and check's capacity
    (not the fit's) holds every replica."""
    config = {**stack, **answer["stack"]}
    run = run_cli("check", "--config", str(_write(tmp_path, config, "after")), "--json")
    assert run.code == 0, run.err
    held: dict[str, int] = {}
    for row in json.loads(run.out)["capacity"]:
        for resource, count in row["total"].items():
            held[resource] = held.get(resource, 0) + count
    assert all(held.get(resource, 0) >= count for resource, count in needed.items()), (held, needed)


def test_a_demand_the_stack_holds_is_no_change_and_nothing_new(tmp_path):
    answer = _day_two(tmp_path, {"name": "chat", "slice": "1g.10gb", "count": 50})
    assert (answer["newNodes"], answer["recutNodes"], answer["newMonthly"], answer["added"]) == (0, 0, 0.0, [])
    assert [pool["change"] for pool in answer["pools"]] == ["kept"]
    assert answer["stack"]["gpupools:gpuPools"] == STACK["gpupools:gpuPools"]
    assert answer["stack"]["gpupools:gpuSoftware"] == STACK["gpupools:gpuSoftware"]
    diff = answer["diff"]
    assert not diff["takesCapacityOffline"] and {pool["change"] for pool in diff["pools"]} == {"unchanged"}
    assert diff["cost"]["monthly"]["delta"] == 0


WANTED = ({"name": "chat", "slice": "1g.10gb", "count": 40}, {"name": "big", "slice": "3g.40gb", "count": 2})


def test_one_more_slice_type_is_a_recut_taken_offline_when_it_spares_a_node(tmp_path):
    answer = _day_two(tmp_path, *WANTED, stack=RECREATE)
    assert (answer["newNodes"], answer["recutNodes"], answer["newMonthly"], answer["proven"]) == (0, 1, 0.0, True)
    (pool,) = answer["pools"]
    assert pool["change"] == "recut" and pool["before"] == [{"gpus": 8, "mix": {"1g.10gb": 7}}]
    diff = answer["diff"]  # plan --base's verdict (plan/recut.py), not the fit's own
    assert diff["takesCapacityOffline"]
    (infer,) = diff["pools"]
    assert infer["change"] == "changed" and infer["inPlace"]["outage"]
    assert "kubectl drain -l gpupools.io/pool=infer" in " ".join(infer["inPlace"]["steps"])
    assert diff["cost"]["monthly"]["delta"] == 0
    _check_holds(tmp_path, answer, {"nvidia.com/mig-1g.10gb": 40, "nvidia.com/mig-3g.40gb": 2}, RECREATE)


def test_on_a_surge_pool_the_new_layout_is_a_new_node_group_created_first(tmp_path):
    answer = _day_two(tmp_path, *WANTED)
    assert (answer["newNodes"], answer["recutNodes"]) == (0, 1)
    diff = answer["diff"]  # plan --base's verdict: the layout is in the surge pool's generation
    assert not diff["takesCapacityOffline"]
    (infer,) = diff["pools"]
    assert infer["change"] == "replaced" and infer["inPlace"] is None
    assert infer["replacement"]["order"] == "create-first"
    _check_holds(tmp_path, answer, {"nvidia.com/mig-1g.10gb": 40, "nvidia.com/mig-3g.40gb": 2})


def test_one_more_slice_type_is_a_new_node_at_its_price_when_no_recut_holds_it(tmp_path):
    answer = _day_two(
        tmp_path, {"name": "chat", "slice": "1g.10gb", "count": 56}, {"name": "big", "slice": "3g.40gb", "count": 1}
    )
    assert (answer["newNodes"], answer["recutNodes"], answer["proven"]) == (1, 0, True)
    assert [pool["change"] for pool in answer["pools"]] == ["kept"]
    diff = answer["diff"]
    assert not diff["takesCapacityOffline"]
    assert {pool["pool"]: pool["change"] for pool in diff["pools"]}["infer"] == "unchanged"
    # the new node's price is what plan's own cost diff adds, and what one p4de node costs a month
    assert answer["newMonthly"] == pytest.approx(diff["cost"]["monthly"]["delta"], abs=0.01)
    assert answer["newMonthly"] == pytest.approx(diff["cost"]["monthly"]["before"], abs=0.01)
    _check_holds(tmp_path, answer, {"nvidia.com/mig-1g.10gb": 56, "nvidia.com/mig-3g.40gb": 1})


def test_whole_gpus_come_from_a_recut_that_leaves_gpus_whole(tmp_path):
    answer = _day_two(
        tmp_path, {"name": "chat", "slice": "1g.10gb", "count": 40}, {"name": "train", "gpu": "whole", "count": 2}
    )
    assert (answer["newNodes"], answer["recutNodes"]) == (0, 1)
    assert {"gpus": 2, "whole": True} in answer["pools"][0]["after"]
    _check_holds(tmp_path, answer, {"nvidia.com/mig-1g.10gb": 40, "nvidia.com/gpu": 2})


def test_the_text_says_the_change_as_plan_base_does(tmp_path):
    demand = _demand(tmp_path, *WANTED)
    run = run_cli("fit", str(demand), "--config", str(_write(tmp_path, RECREATE)))
    assert run.code == 0, run.err
    assert "pool infer: re-cut, 1 node: [8x {1g.10gb: 7}] -> [" in run.out
    assert "capacity OFFLINE while the MIG manager re-cuts it" in run.out
    surge = run_cli("fit", str(demand), "--config", str(_write(tmp_path, STACK, "surge")))
    assert surge.code == 0, surge.err
    assert "; no capacity offline" in surge.out and "pool infer: replaced by surge: new pool infer-" in surge.out
    assert "re-cut nodes: 1; proven optimal (HiGHS optimal)" in run.out
    assert "The change, as plan --base shows it:\nThis change REMOVES GPU capacity" in run.out
    entries = yaml.safe_load(run.out.split("(gpupools check accepts them as they are):\n", 1)[1])
    assert set(entries) == {"gpupools:gpuPools", "gpupools:gpuSoftware"}


@pytest.mark.parametrize(
    ("config", "extra", "expected"),
    [
        (STACK, ["--kueue"], "error: --stack: takes neither --kueue, --svg nor --objective gpus"),
        (STACK, ["--objective", "gpus"], "error: --stack: takes neither --kueue, --svg nor --objective gpus"),
        (AKS_PROFILE, [], "error: gpuSoftware.installer: device-plugin does not re-cut GPUs on live nodes"),
    ],
)
def test_what_day_two_cannot_plan_is_one_error_line(tmp_path, config, extra, expected):
    demand = _demand(tmp_path, {"name": "chat", "slice": "1g.10gb", "count": 1}, cloud=config["gpupools:cloud"])
    run = run_cli("fit", str(demand), "--config", str(_write(tmp_path, config)), *extra)
    assert run.code == 2 and run.out == "" and len(run.lines) == 1, run.err
    assert run.lines[0].startswith(expected), run.lines


def test_a_demand_for_another_cloud_is_refused(tmp_path):
    demand = _demand(tmp_path, {"name": "chat", "slice": "1g.10gb", "count": 1}, cloud="azure")
    run = run_cli("fit", str(demand), "--config", str(_write(tmp_path, STACK)))
    assert run.code == 2 and run.lines == ["error: cloud: the demand is for azure; stack day is on aws"]


def test_the_docs_demand_is_a_recut_of_one_node_with_profiles_of_its_gpu(tmp_path):
    example = Path(__file__).resolve().parents[2] / "examples" / "demand.yaml"
    run = run_cli("fit", str(example), "--config", str(_write(tmp_path, STACK)), "--json")
    assert run.code == 0, run.err
    answer = json.loads(run.out)  # 1g.5gb of an A100-40GB is 1g.10gb here, as plain fit translates it
    assert answer["profiles"] == {"chat": "1g.10gb", "embed": "2g.20gb", "tune": "1g.20gb"}
    assert (answer["newNodes"], answer["recutNodes"], answer["proven"]) == (0, 1, True)
    needed = {"nvidia.com/mig-1g.10gb": 20, "nvidia.com/mig-2g.20gb": 6, "nvidia.com/mig-1g.20gb": 4}
    _check_holds(tmp_path, answer, {**needed, "nvidia.com/gpu": 2})


def test_a_size_the_catalog_lacks_is_refused(tmp_path):
    demand = tmp_path / "demand.yaml"
    demand.write_text("cloud: aws\nregion: us-east-1\nsize: p9.huge\nworkloads:\n  - {name: a, gpu: whole, count: 1}\n")
    run = run_cli("fit", str(demand), "--config", str(_write(tmp_path, STACK)))
    assert run.code == 2 and run.lines == [
        "error: size: 'p9.huge' is not a AWS size the catalog knows (name one in the demand)"
    ]


def test_more_of_the_same_slices_grow_the_pool_that_has_them(tmp_path):
    answer = _day_two(tmp_path, {"name": "chat", "slice": "1g.10gb", "count": 60})
    assert (answer["newNodes"], answer["recutNodes"], answer["added"]) == (1, 0, [{"pool": "infer", "nodes": 1}])
    (entry,) = answer["stack"]["gpupools:gpuPools"]
    assert entry == {**STACK["gpupools:gpuPools"][0], "count": 2}
    (infer,) = answer["diff"]["pools"]
    assert infer["nodes"] == {"before": 1, "after": 2, "delta": 1} and not answer["diff"]["takesCapacityOffline"]
    assert answer["newMonthly"] == pytest.approx(answer["diff"]["cost"]["monthly"]["delta"], abs=0.01)
    _check_holds(tmp_path, answer, {"nvidia.com/mig-1g.10gb": 60})


def test_a_recut_to_several_profiles_moves_a_single_strategy_to_mixed(tmp_path):
    config = {**STACK, "gpupools:gpuSoftware": {"installer": "gpu-operator", "migStrategy": "single"}}
    demand = _demand(
        tmp_path, {"name": "chat", "slice": "1g.10gb", "count": 40}, {"name": "big", "slice": "3g.40gb", "count": 2}
    )
    run = run_cli("fit", str(demand), "--config", str(_write(tmp_path, config)), "--json")
    assert run.code == 0, run.err
    answer = json.loads(run.out)
    assert answer["stack"]["gpupools:gpuSoftware"] == {"installer": "gpu-operator", "migStrategy": "mixed"}
    assert (answer["newNodes"], answer["recutNodes"]) == (0, 1)
    check = run_cli("check", "--config", str(_write(tmp_path, {**config, **answer["stack"]}, "after")))
    assert check.code == 0, check.err
