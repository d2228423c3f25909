"""Issue 36's found examples on the ways in that read or write files (3, 4, 9, 10): each ends in exit 0 or 2 with
one error line naming the field or the file, and no file in the case's folder changes.

The refresh examples (1, 2, 5, 6) run against local servers in ``tests/price_lists/test_refresh_transaction.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from support.cli import run_cli
from support.hostile_catalogue import snapshot

REPO = Path(__file__).resolve().parents[2]


def _stack(folder: Path, name: str, change) -> Path:
    """A repository stack file with ``change`` applied to its ``config:``, written under ``folder``."""
    document = yaml.safe_load((REPO / name).read_text())
    change(document["config"])
    path = folder / name
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _one_error(run, says: str) -> None:
    errors = [line for line in run.err.splitlines() if line.startswith("error")]
    assert run.code == 2, run.err
    assert len(errors) == 1 and says in errors[0], run.err
    assert "internal error" not in run.err


def _reserve(pool_key: str, reservation: dict):
    def change(config: dict) -> None:
        config["gpupools:gpuPools"][0][pool_key] = reservation

    return change


EKS_ID, AKS_ID = (
    "cr-0123456789abcdef0",
    (
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/"
        "Microsoft.Compute/capacityReservationGroups/crg"
    ),
)
RESERVATIONS = [
    ("Pulumi.eks.yaml", "capacityReservation", {"id": EKS_ID, "instances": 0}, "reservedInstances"),
    ("Pulumi.eks.yaml", "capacityReservation", {"id": EKS_ID, "instances": 1, "days": -3}, "reservedDays"),
    ("Pulumi.eks.yaml", "capacityReservation", {"id": EKS_ID, "instances": 1, "days": "x"}, "reservedDays"),
    ("Pulumi.dev.yaml", "capacityReservationGroupId", {"id": AKS_ID, "instances": 0}, "reservedInstances"),
]


@pytest.mark.parametrize("command", ["check", "plan"])
@pytest.mark.parametrize("stack, key, reservation, field", RESERVATIONS)
def test_a_bad_reserved_quantity_is_one_line_not_an_internal_error(
    tmp_path, command, stack, key, reservation, field
):  # example 3
    path = _stack(tmp_path, stack, _reserve(key, reservation))
    before = snapshot(tmp_path)
    run = run_cli(command, "--config", str(path))
    _one_error(run, f"gpuPools[0].{field}")
    assert snapshot(tmp_path) == before


def _demand(folder: Path, **given) -> Path:
    document = {"cloud": "aws", "region": "us-east-1", "workloads": [{"name": "chat", "slice": "1g.5gb", "count": 2}]}
    path = folder / "demand.yaml"
    path.write_text(yaml.safe_dump({**document, **given}))
    return path


def test_fit_refuses_a_size_the_region_does_not_sell_as_check_does(tmp_path):  # example 10
    fit = run_cli("fit", str(_demand(tmp_path, region="af-south-1", size="p4d.24xlarge")))
    _one_error(fit, "size: 'p4d.24xlarge' is not offered in af-south-1")

    def put_in_cape_town(config: dict) -> None:
        config["aws:region"] = config["gpupools:cluster"]["region"] = "af-south-1"

    check = run_cli("check", "--config", str(_stack(tmp_path, "Pulumi.eks.yaml", put_in_cape_town)))
    _one_error(check, "'p4d.24xlarge' is not offered in af-south-1")
    assert fit.err.split("is not offered", 1)[1] == check.err.split("is not offered", 1)[1]  # one rule, one text
