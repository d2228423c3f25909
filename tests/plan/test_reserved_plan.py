"""Done when (issue 27): the reserved-capacity stacks (ODCR, Capacity Block, CRG at ``minCount: 0``) show no $0 and
no "saves", in the plan and in the ``--base`` diff a minCount change makes."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from support.base_configs import PINNED_AWS, PINNED_AZURE
from support.cli import run_cli
from support.plan_once import one_program_run_per_stack_file
from support.stack_files import write_stack_file

ODCR = "cr-0123456789abcdef0"
CRG = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/gpu-capacity/providers/"
    "Microsoft.Compute/capacityReservationGroups/a100-crg"
)
SUBNET = ["subnet-0123456789abcdef0"]


def _aws(reservation, **pool) -> dict:
    raw = copy.deepcopy(PINNED_AWS)
    raw["gpupools:gpuPools"][0].update(
        {"count": 0, "autoscaling": {"minCount": 0, "maxCount": 2}, "subnetIds": SUBNET}, **pool
    )
    raw["gpupools:gpuPools"][0]["capacityReservation"] = reservation
    return raw


def _block(reservation) -> dict:
    raw = _aws(reservation, size="p5.48xlarge", capacityType="CAPACITY_BLOCK")
    del raw["gpupools:gpuPools"][0]["mig"]
    return raw


def _crg(group) -> dict:
    raw = copy.deepcopy(PINNED_AZURE)
    raw["gpupools:gpuPools"][0] = {
        "name": "a100",
        "size": "Standard_NC24ads_A100_v4",
        "count": 0,
        "autoscaling": {"minCount": 0, "maxCount": 2},
        "capacityReservationGroupId": group,
    }
    return raw


STACKS = {
    "odcr": (_aws(ODCR), _aws({"id": ODCR, "instances": 2})),
    "block": (_block({"id": ODCR, "instances": 2}), _block({"id": ODCR, "instances": 2, "days": 7})),
    "crg": (_crg(CRG), _crg({"id": CRG, "instances": 2})),
}
ZERO = re.compile(r"\$0(\.0+)?(?![.\d])")


@pytest.mark.parametrize("kind", sorted(STACKS))
def test_reserved_pools_show_no_zero_priced_or_unpriced(tmp_path: Path, kind: str) -> None:
    unpriced, priced = STACKS[kind]
    for raw, name in ((unpriced, "unpriced"), (priced, "priced")):
        path = write_stack_file(tmp_path, raw, name)
        with one_program_run_per_stack_file():  # three formats of one stack file: its program runs once
            for args in ((), ("--format", "markdown")):
                run = run_cli("plan", *args, "--config", str(path))
                assert run.code == 0, run.err
                assert not ZERO.search(run.out), run.out
            cost = json.loads(run_cli("plan", "--json", "--config", str(path)).out)["cost"]
        [pool] = cost["pools"]
        assert pool["billedBy"] == "reservation"
        if name == "unpriced":
            assert pool["monthly"] is None and "billed by the" in pool["note"] and "not priced" in pool["note"]
        else:
            assert pool["monthly"] > 0 and pool["nodes"] == 0


@pytest.mark.parametrize("kind", sorted(STACKS))
def test_scaling_a_reserved_pool_saves_nothing(tmp_path: Path, kind: str) -> None:
    for raw in STACKS[kind]:
        base = tmp_path / f"{kind}-base.json"
        bigger = copy.deepcopy(raw)
        bigger["gpupools:gpuPools"][0]["count"] = 1
        bigger["gpupools:gpuPools"][0]["autoscaling"]["minCount"] = 1
        base.write_text(run_cli("plan", "--json", "--config", str(write_stack_file(tmp_path, bigger, "big"))).out)
        head = write_stack_file(tmp_path, raw, "small")
        run = run_cli("plan", "--config", str(head), "--base", str(base))
        assert run.code == 0, run.err
        assert "saves" not in run.out.splitlines()[0], run.out
