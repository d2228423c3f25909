"""Issue 25's hostile catalogue (``support.hostile_cases``) through the command line: every case ends in exit 0 or 2
with one clear line per problem, naming the field or file, no ``internal error``, no
raw control character in what it prints, and no user file changed.

The cases run once per session, in this process through ``gpupools.cli.main`` (the code paths of
``python -m gpupools``, a few hundred ms each instead of an interpreter each); those bounded only by a timeout of
many seconds (a silent or dripping server), and time and memory, are ``benchmarks/hostile.py``'s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support import hostile_catalogue
from support.hostile_cases import all_cases
from support.hostile_runner import Results, run_each

# A closed pipe needs a process of its own: tests/cli/test_new_user_gaps.py runs that one, the benchmark all.
CASES = [case for case in all_cases() if not case.slow and not case.pipe]


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Results:
    return run_each(CASES, tmp_path_factory.mktemp("hostile"))


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_every_hostile_case_ends_cleanly(outcomes: Results, case: hostile_catalogue.Case) -> None:
    found = outcomes[case.name]
    if isinstance(found, LookupError):
        pytest.skip(str(found))
    outcome, _ = found
    assert hostile_catalogue.problems_of(case, outcome) == [], outcome.err.decode("utf-8", "replace")[-2000:]


def test_the_judge_catches_what_it_must(tmp_path: Path) -> None:
    """The checks above can fail: an internal error, a raw ESC, a C1 control, a changed file are each caught."""
    case = hostile_catalogue.Case("x", "x", [])
    bad = hostile_catalogue.Outcome(1, b"\x1b[2J", "internal error \u009b".encode(), changed=["notes.txt"])
    found = " | ".join(hostile_catalogue.problems_of(case, bad))
    for says in ("exit 1", "raw control bytes", "C1 control", "internal error", "changed ['notes.txt']"):
        assert says in found
    (tmp_path / "a").write_text("1")
    before = hostile_catalogue.snapshot(tmp_path)
    (tmp_path / "a").write_text("2")
    assert hostile_catalogue.changed(before, hostile_catalogue.snapshot(tmp_path), ()) == ["a"]
