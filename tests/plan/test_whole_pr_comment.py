"""The whole pull request comment for the shipped stacks, as the preview workflow builds it (``plan_stacks.sh``).

A pull request that changes no stack: its first line says so and what each priced stack costs, with no "unknown"
(``Pulumi.existing.yaml`` names no region: it says "unpriced: no region" in its own heading, once), and each stack is
one visible line, its heading, with the details collapsed under it.
"""

from __future__ import annotations

import shutil

import pytest

from support.plan_stacks import base_checkout, pr_comment
from support.stack_files import REPO

STACKS = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml") for path in REPO.glob("Pulumi.*.yaml"))


@pytest.fixture(scope="module")
def comment(tmp_path_factory) -> list[str]:
    base = base_checkout(tmp_path_factory.mktemp("base"))
    for path in [REPO / "Pulumi.yaml", *REPO.glob("Pulumi.*.yaml")]:
        shutil.copy(path, base)
    return pr_comment(base, timeout=600)


def test_the_first_line_names_no_unknown(comment):
    first = comment[0]
    assert first.startswith("This pull request removes no GPU capacity (capacity diffs below). List price: ")
    assert "unknown" not in first and "unpriced" not in first
    priced = [stack for stack in STACKS if stack != "existing"]  # the one shipped stack without a region
    assert first.endswith(", ".join(f"{stack} no change in list price" for stack in priced) + ".")


def test_each_unchanged_stack_is_one_line_with_its_details_collapsed(comment):
    headings = [index for index, line in enumerate(comment) if line.startswith("### ")]
    assert sorted(comment[index].split("`")[1] for index in headings) == STACKS
    for start, end in zip(headings, [*headings[1:], len(comment)]):
        heading, *part = comment[start:end]
        assert heading.endswith(": This change does not change GPU capacity; no change in list price") or (
            heading.endswith("; unpriced: no region")
        ), heading
        visible = [line for line in part if line.strip()]
        assert visible[0].startswith("<details><summary>") and visible[-1] == "</details>", heading


def test_an_unpriced_stack_says_so_once(comment):
    text = "\n".join(comment)
    assert text.count("unpriced: no region") == 1
    [heading] = [line for line in comment if line.startswith("### `existing`")]
    assert heading == "### `existing` (azure): This change does not change GPU capacity; unpriced: no region"
    assert "no price applies" not in text.split("### `existing`", 1)[1].split("### ", 1)[0]
