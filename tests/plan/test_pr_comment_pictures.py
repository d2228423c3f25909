"""The pull request comment draws each changed pool's GPU layout before and after (a fixed-width block), and
nothing for an unchanged one; ``plan --svg`` draws the stack's nodes, the same bytes as the picture of the stack
``load_stack`` validates (which the docs generator draws)."""

from __future__ import annotations

import json
from pathlib import Path

import markdown_it
import pytest

from gpupools.config.loading import read_stack_file
from gpupools.domain.mig_drawing import stack_picture
from gpupools.pictures.svg import render_svg
from gpupools.resolve.stack_loader import load_stack
from support.cli import run_cli
from test_pr_comment_structure import _part

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mig3g(tmp_path_factory) -> str:
    return _part(tmp_path_factory.mktemp("mig3g"), "gpu", "MIG3g")


def _blocks(comment: str) -> list[str]:
    tokens = markdown_it.MarkdownIt("commonmark").parse(comment)
    return [token.content for token in tokens if token.type == "fence" and token.info == "text"]


def test_a_mig1g_to_mig3g_change_draws_both_layouts(mig3g):
    [block] = _blocks(mig3g)
    lines = block.splitlines()
    before = lines.index("before: A100-40GB: 1g.5gb x7 (8 per node, 1 node)")
    after = lines.index("after: A100-40GB: 3g.20gb x2 (8 per node, 1 node)")
    assert before < after
    # NVIDIA: seven 1g.5gb at slices 0..6 leave slice 7 idle; two 3g.20gb take slices 0..3 and 4..7
    assert lines[before + 2].count(" 1g.5gb ") == 7 and "spare" in lines[before + 2]
    assert lines[after + 2].count("3g.20gb") == 2 and "spare" not in lines[after + 2]
    assert "**mig1g**: GPU layout before and after" in mig3g


def test_an_unchanged_pool_is_not_drawn(tmp_path):
    same = _part(tmp_path, "gpu", "MIG1g")
    assert _blocks(same) == [] and "GPU layout before and after" not in same


def test_a_base_plan_without_layouts_says_so(tmp_path):
    from test_pr_comment_structure import _raw
    from support.stack_files import write_stack_file

    base = tmp_path / "base.json"
    planned = json.loads(
        run_cli("plan", "--json", "--config", str(write_stack_file(tmp_path, _raw("MIG1g"), "gpu"))).out
    )
    base.write_text(json.dumps({key: value for key, value in planned.items() if key != "gpuLayouts"}))
    head = write_stack_file(tmp_path, _raw("MIG3g"), "gpu")
    run = run_cli("plan", "--format", "markdown", "--config", str(head), "--base", str(base))
    assert run.code == 0, run.err
    [block] = _blocks(run.out)
    assert "before: not in the base plan" in block and "after: A100-40GB: 3g.20gb x2" in block


def test_plan_svg_is_the_stack_picture(tmp_path):
    out = tmp_path / "plan.svg"
    stack_path = ROOT / "Pulumi.dev.yaml"
    run = run_cli("plan", "--config", str(stack_path), "--svg", str(out))
    assert run.code == 0, run.err
    stack = load_stack(read_stack_file(stack_path).config)
    assert out.read_text() == render_svg(stack_picture(stack.pools), "gpupools plan: stack dev (azure)")


def test_the_previews_page_shows_this_very_block(mig3g):
    page = (ROOT / "docs" / "pr-previews.md").read_text(encoding="utf-8")
    assert _blocks(mig3g)[0] in _blocks(page)
