"""A list of 10,000 subnets (issue 25's new-user gaps) is one mistake: at most a few malformed ids are named, with
how many more there were, a repeated id is named once, and the check is linear in the list."""

from __future__ import annotations

from gpupools.resolve.aws_rules import MAX_SUBNET_LINES, subnet_id_problems

GOOD = "subnet-0123456789abcdef0"


def test_ten_thousand_malformed_ids_are_a_few_lines_and_a_count() -> None:
    problems = subnet_id_problems([f"bad-{n}" for n in range(10_000)])
    assert len(problems) == MAX_SUBNET_LINES + 1
    assert problems[0] == "'bad-0' is not a subnet id; allowed: subnet- and 8 or 17 lowercase hex digits"
    assert problems[-1] == f"{10_000 - MAX_SUBNET_LINES} more ids are not subnet ids (not shown)"


def test_one_id_repeated_ten_thousand_times_is_named_once() -> None:
    assert subnet_id_problems([GOOD] * 10_000) == [f"lists {GOOD} more than once; each subnet at most once"]


def test_many_repeated_ids_are_cut_with_a_count() -> None:
    ids = [f"subnet-{n:017x}" for n in range(8)] * 2
    [problem] = subnet_id_problems(ids)
    assert problem.endswith(f"and {8 - MAX_SUBNET_LINES} more more than once; each subnet at most once")


def test_a_good_list_has_no_problem() -> None:
    assert subnet_id_problems([GOOD, "subnet-0123456789abcdef1"]) == []
