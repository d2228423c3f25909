"""The pull request comment, parsed as GitHub parses it (markdown-it-py, CommonMark with the GFM table rule).

Issue 27 tried the comment as a new user would: a stack's diff sat above its own heading, cells pushed tables off
the side of the page, a new resource cost "$0.0000", and every resource was marked "+". Here: the heading comes
first and names what goes and what arrives, every table parses, no cell's text is over 60 characters, no $0.0000,
resources carry pulumi preview's marks, and twenty stacks stay under the comment limit.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from support.base_configs import PINNED_AZURE
from support.cli import run_cli
from support.plan_once import one_program_run_per_stack_file
from support.stack_files import write_stack_file

markdown_it = pytest.importorskip("markdown_it")

LIMIT = 60_000  # .github/workflows: the comment is cut here (GitHub refuses more than 65,536 characters)
MAX_CELL = 60


def _raw(profile: str, location: str = "eastus") -> dict:
    raw = copy.deepcopy(PINNED_AZURE)
    raw["gpupools:cluster"]["location"] = location
    raw["gpupools:gpuPools"][0]["mig"] = {"profile": profile}
    raw["gpupools:gpuSoftware"]["migStrategy"] = "single" if profile == "MIG1g" else "mixed"
    return raw


def _part(folder: Path, name: str, head_profile: str) -> str:
    """One stack's part of the comment: its head planned against a MIG1g base."""
    folder.mkdir(parents=True, exist_ok=True)
    base = folder / "base.json"
    with one_program_run_per_stack_file():  # a head the same as its base is the same stack file: one program run
        base.write_text(run_cli("plan", "--json", "--config", str(write_stack_file(folder, _raw("MIG1g"), name))).out)
        head = write_stack_file(folder, _raw(head_profile), name)
        run = run_cli("plan", "--format", "markdown", "--config", str(head), "--base", str(base))
    assert run.code == 0, run.err
    return run.out


@pytest.fixture(scope="module")
def mig3g(tmp_path_factory) -> str:
    return _part(tmp_path_factory.mktemp("mig3g"), "gpu", "MIG3g")


def _tokens(text: str):
    return markdown_it.MarkdownIt("commonmark").enable("table").parse(text)


def _cells(tokens) -> list[str]:
    """Each table cell's text as a reader sees it (a link's text, not its address)."""
    cells, inside = [], False
    for token in tokens:
        if token.type in ("td_open", "th_open"):
            inside = True
        elif token.type in ("td_close", "th_close"):
            inside = False
        elif inside and token.type == "inline":
            cells.append(
                "".join(child.content for child in token.children or [] if child.type in ("text", "code_inline"))
            )
    return cells


def test_the_heading_comes_first_and_names_what_goes_and_what_arrives(mig3g):
    tokens = _tokens(mig3g)
    assert tokens[0].type == "heading_open" and tokens[0].tag == "h3"
    heading = tokens[1].content
    assert heading.startswith("`gpu` (azure): :warning: This change REMOVES GPU capacity: ")
    assert "mig1g: 56× nvidia.com/gpu → 16× nvidia.com/mig-3g.20gb, each slice grew from 1g.5gb to 3g.20gb" in heading
    assert heading.endswith("no change in list price")  # the money
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h3"]  # no other heading above or inside


def test_every_table_parses_and_no_cell_is_wider_than_a_page_column(mig3g):
    tokens = _tokens(mig3g)
    separators = [line for line in mig3g.splitlines() if re.fullmatch(r"\|(---\|)+", line)]
    assert len(separators) == sum(1 for t in tokens if t.type == "table_open") >= 4
    wide = [cell for cell in _cells(tokens) if len(cell) > MAX_CELL]
    assert wide == []


def test_no_zero_price_new_slices_are_named_and_the_cluster_is_unchanged(mig3g):
    assert "$0.0000" not in mig3g and "→ $0.00" not in mig3g
    assert re.search(r"\| mig1g \| mig-3g\.20gb \| new \| \$[\d.]+ \|", mig3g)
    assert re.search(r"\| mig1g \| gpu \| \$[\d.]+ \| gone \|", mig3g)
    [cluster] = [line for line in mig3g.splitlines() if "azure-native:containerservice:ManagedCluster" in line]
    assert cluster.lstrip() == cluster.strip() and not cluster.strip().startswith(("+", "~", "-"))
    [pool] = [line for line in mig3g.splitlines() if "azure-native:containerservice:AgentPool" in line]
    assert pool.strip().startswith("+- ")
    assert "1 to update, 1 to replace, 8 unchanged" in mig3g


def test_a_re_cut_under_one_resource_name_says_the_slices_grew(tmp_path):
    """migStrategy single on both sides: 56 then 16 ``nvidia.com/gpu``, which are 1g.5gb then 3g.20gb slices."""
    folder = tmp_path / "single"
    folder.mkdir()
    base = folder / "base.json"
    with one_program_run_per_stack_file():
        base.write_text(run_cli("plan", "--json", "--config", str(write_stack_file(folder, _raw("MIG1g"), "one"))).out)
        head = _raw("MIG3g")
        head["gpupools:gpuSoftware"]["migStrategy"] = "single"
        run = run_cli(
            "plan", "--format", "markdown", "--config", str(write_stack_file(folder, head, "one")), "--base", str(base)
        )
    heading = run.out.splitlines()[0]
    assert (
        "REMOVES GPU capacity: mig1g: 56× nvidia.com/gpu → 16× nvidia.com/gpu, each slice grew from 1g.5gb to "
        "3g.20gb" in heading
    ), heading


def test_marks_take_one_width_so_the_tree_aligns(mig3g):
    """``~``, ``+-`` and unmarked resources of one depth start their type in the same column."""
    tree = mig3g.split("and key inputs</summary>", 1)[1].split("```")[1].splitlines()
    marked = [line for line in tree if re.match(r"^ *(~|\+-|\+|-)? +[a-z-]+:[\w/.-]+:\w+  ", line)]
    columns = {}
    for line in marked:
        mark = re.match(r"^( *)(\S*) +", line)
        assert mark is not None
        indent, sign = mark.group(1), mark.group(2)
        if ":" in sign:  # unmarked: the type itself
            sign = ""
        start = len(line) - len(line.lstrip())
        type_at = line.index(line.split()[1] if sign else line.split()[0])
        columns.setdefault(len(indent) if sign else start - 3, set()).add(type_at)
    assert {line.strip()[:2] for line in marked} >= {"~ ", "+-"}
    assert all(len(at) == 1 for at in columns.values()), columns


def test_total_says_which_pools_it_counts(mig3g):
    assert "| **total: GPU pools mig1g** |" in mig3g


def test_an_unchanged_stack_is_one_line_with_its_details_collapsed(tmp_path):
    part = _part(tmp_path, "same", "MIG1g")
    first, *rest = part.splitlines()
    assert first == "### `same` (azure): This change does not change GPU capacity; no change in list price"
    body = "\n".join(rest)
    assert body.lstrip().startswith("<details>") and body.rstrip().endswith("</details>")


def test_twenty_stacks_stay_under_the_comment_limit(tmp_path):
    """Twenty stacks, four of them changed: what plan_stacks.sh concatenates."""
    parts = [_part(tmp_path / f"s{i}", f"stack{i:02d}", "MIG3g" if i % 5 == 0 else "MIG1g") for i in range(20)]
    comment = "\n".join(parts)
    assert len(comment) < LIMIT, [len(part) for part in parts]
    headings = [t for t in _tokens(comment) if t.type == "heading_open"]
    assert len(headings) == 20
