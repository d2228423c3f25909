"""Every repository stack prints, byte for byte, the golden ``plan --json``, ``check --json`` and
``plan --format markdown`` in ``tests/golden/`` (made by ``tests/support/golden.py --write``). The chart
variants are pinned as what they change against these: ``test_variant_snapshots.py``."""

from __future__ import annotations

import pytest

from support.golden import CASES, GOLDEN, expected_files, mismatches


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_outputs_match_the_golden_files(case):
    problems = mismatches(case)
    if problems:
        pytest.fail("the CLI output changed:\n" + "\n".join(problems), pytrace=False)


def test_every_golden_file_belongs_to_a_case():
    assert sorted(path.name for path in GOLDEN.iterdir()) == sorted(expected_files())
