"""Issue 36's found examples on the ways in that read or write files (1, 2, 3, 4, 6, 9, 10): each ends in exit 0 or 2
with one error line naming the field or the file, and no file in the case's folder changes.

The refresh examples (1, 2, 4, 6) and the demand file's (9) are cases of ``support.hostile_io_cases``, run against
a local HTTPS price host; the deadline (5) and the all-or-none write: ``tests/price_lists/test_refresh_transaction.py``.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
import yaml

from support import hostile_catalogue
from support.cli import run_cli
from support.hostile_catalogue import snapshot
from support.hostile_io_cases import io_cases
from support.hostile_runner import Results, run_each

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


def test_fit_refuses_a_size_the_region_does_not_sell_as_check_does(tmp_path, monkeypatch):  # example 10
    # On a day within 90 days of the AWS offers list's data (2026-01-21): after that a missing size only warns, in
    # check and fit alike (tests/resolve/test_dated_rules.py).
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1776729600")  # 2026-04-21 UTC
    fit = run_cli("fit", str(_demand(tmp_path, region="af-south-1", size="p4d.24xlarge")))
    _one_error(fit, "size: 'p4d.24xlarge' is not offered in af-south-1")

    def put_in_cape_town(config: dict) -> None:
        config["aws:region"] = config["gpupools:cluster"]["region"] = "af-south-1"

    check = run_cli("check", "--config", str(_stack(tmp_path, "Pulumi.eks.yaml", put_in_cape_town)))
    _one_error(check, "'p4d.24xlarge' is not offered in af-south-1")
    assert fit.err.split("is not offered", 1)[1] == check.err.split("is not offered", 1)[1]  # one rule, one text


# --- examples 1, 2, 4, 6 and 9 through the command line, against a local HTTPS price host ------------------------

IO_CASES = io_cases()


@pytest.fixture(scope="module")
def io_outcomes(tmp_path_factory: pytest.TempPathFactory) -> Results:
    return run_each(IO_CASES, tmp_path_factory.mktemp("hostile-io"))


def _outcome(io_outcomes: Results, name: str) -> tuple[hostile_catalogue.Outcome, Path]:
    found = io_outcomes[name]
    if isinstance(found, LookupError):
        pytest.skip(str(found))
    assert isinstance(found, tuple)
    return found


@pytest.mark.parametrize("case", IO_CASES, ids=[case.name for case in IO_CASES])
def test_each_case_ends_cleanly_with_one_line_and_no_file_changed(io_outcomes, case):
    outcome, _ = _outcome(io_outcomes, case.name)
    assert hostile_catalogue.problems_of(case, outcome) == [], outcome.err.decode("utf-8", "replace")[-2000:]
    if outcome.code == 2:
        assert len([line for line in outcome.err.decode().splitlines() if line.startswith("error")]) == 1


def test_a_whole_refresh_writes_both_caches_side_by_side(io_outcomes):  # example 6: where the docs say
    outcome, where = _outcome(io_outcomes, "good full refresh")
    offers = json.loads((where / "cache" / "gpupools" / "offers.json").read_text())
    (azure,) = [item for item in offers["lists"] if item["cloud"] == "azure"]
    assert azure["sizes"]["Standard_ND96asr_v4"] == ["eastus", "westeurope"]
    assert json.loads((where / "cache" / "gpupools" / "prices.json").read_text())["prices"]
    assert stat.S_IMODE((where / "cache" / "gpupools" / "offers.json").stat().st_mode) == 0o600  # mode kept
    assert sorted(p.name for p in (where / "cache" / "gpupools").iterdir()) == ["offers.json", "prices.json"]
    assert str(where / "cache" / "gpupools" / "offers.json") in outcome.out.decode()


def test_a_planted_temp_name_is_never_followed(io_outcomes):  # example 1
    _, where = _outcome(io_outcomes, "planted offers.tmp symlink")
    assert (where / "victim.txt").read_text() == "mine\n"
    assert (where / "d" / "offers.tmp").is_symlink() and (where / "d" / ".offers.json.tmp").read_text() == "also mine\n"
    assert json.loads((where / "d" / "offers.json").read_text())["format"] == "gpupools-offers/1"
    assert sorted(p.name for p in (where / "d").iterdir()) == [".offers.json.tmp", "offers.json", "offers.tmp"]


def test_a_symlinked_private_offers_cache_stays_a_link_and_private(io_outcomes):  # example 1
    _, where = _outcome(io_outcomes, "symlinked private offers cache")
    assert (where / "d" / "offers.json").is_symlink()
    real = where / "real" / "offers.json"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600 and json.loads(real.read_text())["lists"]
