"""The MIG pictures on the command line: ``fit`` and ``check`` draw each distinct layout once (boxes, or ASCII when
asked or when the terminal cannot show boxes; colour only on a TTY without ``NO_COLOR``), ``fit --svg`` writes a
well-formed, self-contained, byte-identical SVG with one box per MIG instance of the answer and one per node, and
a hostile name is escaped in the terminal's, the comment's and the SVG picture alike."""

from __future__ import annotations

import ast
import io
import json
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

import pytest
import yaml

from gpupools import cli
from gpupools.catalog.gpus import GPU_MODELS
from gpupools.config.loading import read_stack_file
from gpupools.domain.mig_drawing import Picture, entries_picture, place_gpu, stack_picture
from gpupools.pictures.markdown import changed_layouts
from gpupools.pictures.svg import render_svg
from gpupools.pictures.text import picture_lines
from gpupools.resolve.stack_loader import load_stack
from support.cli import run_cli

try:  # defusedxml where installed; the stdlib parser otherwise (our own output, no entities to expand)
    from defusedxml import ElementTree
except ImportError:
    from xml.etree import ElementTree  # noqa: S405

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "demand.yaml"
SVG = "{http://www.w3.org/2000/svg}"
BOX_CHARACTERS = set("┌┐└┘┬┴─│")


@pytest.fixture(scope="module")
def answer() -> dict:
    run = run_cli("fit", str(EXAMPLE), "--json")
    assert run.code == 0, run.err
    return json.loads(run.out)


def _layout_part(out: str) -> str:
    return out.split("MIG layouts (each distinct GPU layout once):", 1)[1]


def test_fit_draws_each_distinct_layout_once_in_boxes(answer):
    run = run_cli("fit", str(EXAMPLE))
    assert run.code == 0, run.err
    part = _layout_part(run.out)
    for pool in answer["pools"]:
        for group in pool["gpusByLayout"]:  # the GPUs of a node cut alike (fit --json)
            if group["layout"] == "whole":
                assert part.count(f"{answer['gpu']}, whole (no MIG) (pool {pool['name']}:") == 1
                continue
            shown = ", ".join(f"{name} x{count}" for name, count in group["layout"].items())
            assert part.count(f"{answer['gpu']}: {shown} (pool {pool['name']}:") == 1
            # each instance's profile is written in its box
            heading = part.index(f"{answer['gpu']}: {shown} (pool {pool['name']}:")
            boxes = next(line for line in part[heading:].splitlines() if line.startswith("│"))
            assert sum(boxes.count(f" {name} ") + boxes.count(f"│{name} ") for name in group["layout"]) == sum(
                group["layout"].values()
            )
    assert BOX_CHARACTERS <= set(part)
    assert "\x1b" not in run.out  # not a TTY: no colour


def test_ascii_when_asked_or_when_the_terminal_cannot_show_boxes():
    asked = _layout_part(run_cli("fit", str(EXAMPLE), "--ascii").out)
    assert asked.isascii() and "+----" in asked and "|" in asked
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="backslashreplace")
    with redirect_stdout(stream), redirect_stderr(io.StringIO()):
        assert cli.main(["fit", str(EXAMPLE)]) == 0
    stream.flush()
    text = raw.getvalue().decode("ascii")
    assert "+----" in _layout_part(text) and "\\u250c" not in text


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("no_color", "coloured"), [(None, True), ("1", False)])
def test_colour_only_on_a_tty_and_never_with_no_color(monkeypatch, no_color, coloured):
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    out = _Terminal()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert cli.main(["check", "--config", str(ROOT / "Pulumi.dev.yaml")]) == 0
    assert ("\x1b[" in out.getvalue()) is coloured


def test_check_draws_the_stack_layouts_and_whole_gpus_too(tmp_path):
    run = run_cli("check", "--config", str(ROOT / "Pulumi.dev.yaml"), "--ascii")
    assert run.code == 0, run.err
    part = _layout_part(run.out)
    assert "A100-40GB: 1g.5gb x7 (pool mig1g: 8 GPUs; 1 spare slice)" in part
    assert part.count("| 1g.5gb |") >= 1 and part.count("1g.5gb") == 8  # heading + seven boxes
    assert "spare" in part


def _svg(path: Path) -> ElementTree.Element:
    root = ElementTree.fromstring(path.read_bytes())
    assert root.tag == f"{SVG}svg"
    return root


def test_fit_svg_is_well_formed_self_contained_and_has_a_box_per_instance_and_node(answer, tmp_path):
    first, second = tmp_path / "a.svg", tmp_path / "b.svg"
    assert run_cli("fit", str(EXAMPLE), "--svg", str(first)).code == 0
    assert run_cli("fit", str(EXAMPLE), "--json", "--svg", str(second)).code == 0
    assert first.read_bytes() == second.read_bytes()  # deterministic
    root = _svg(first)
    elements = list(root.iter())
    assert not [e for e in elements if e.tag in (f"{SVG}script", f"{SVG}foreignObject", f"{SVG}style")]
    assert not [(e.tag, k) for e in elements for k in e.attrib if "href" in k or k.startswith("on")]
    assert b"url(" not in first.read_bytes() and b"@import" not in first.read_bytes()
    rects = [e for e in elements if e.tag == f"{SVG}rect"]
    instances = sum(
        pool["nodes"] * group["gpus"] * sum(group["layout"].values())
        for pool in answer["pools"]
        for group in pool["gpusByLayout"]
        if group["layout"] != "whole"
    )
    assert len([r for r in rects if r.get("class") == "instance"]) == instances
    assert len([r for r in rects if r.get("class") == "node"]) == answer["nodes"]
    assert int(root.get("width", "0")) >= 600
    texts = " ".join(e.text or "" for e in elements if e.tag == f"{SVG}text")
    assert "Legend" in texts
    for workload in answer["demand"]["workloads"]:
        assert workload["name"] in texts  # every workload labels its boxes


def test_an_unwritable_svg_path_is_one_error_naming_the_option(tmp_path):
    run = run_cli("fit", str(EXAMPLE), "--svg", str(tmp_path))  # a folder
    assert run.code == 2 and run.out == ""
    assert run.lines and all(line.startswith("error: --svg") for line in run.lines), run.err


HOSTILE_POOL = "<script>alert(1)</script>"
HOSTILE_WORKLOAD = "]]>\x1b[31mred"


def _hostile() -> Picture:
    gpu = GPU_MODELS["A100-80GB"]
    layout = (("1g.10gb", 1),)
    drawn = place_gpu(gpu, layout, [("1g.10gb", HOSTILE_WORKLOAD)])
    pool = entries_picture(HOSTILE_POOL, "size", gpu, [layout], 1)
    node = type(pool.nodes[0])(HOSTILE_POOL, 1, "size", (drawn, place_gpu(gpu, None, [(None, HOSTILE_WORKLOAD)])))
    return Picture((type(pool)(HOSTILE_POOL, "size", pool.node_gpus + (place_gpu(gpu, None),), (node,)),))


def test_a_hostile_name_is_escaped_in_every_picture():
    picture = _hostile()
    text = "\n".join(picture_lines(picture, colour=True))
    assert HOSTILE_POOL in text  # printable: shown as written
    assert "\x1b[31m" not in text and "\x1b[" in text  # its ESC is escaped; only our colour codes remain
    comment = "\n".join(changed_layouts(None, picture, [HOSTILE_POOL]))
    assert "<script>" not in comment and "&lt;script&gt;" in comment and "\x1b" not in comment
    svg = render_svg(picture, f"title {HOSTILE_POOL} {HOSTILE_WORKLOAD}")
    assert "<script" not in svg and "]]>" not in svg and "\x1b" not in svg
    root = ElementTree.fromstring(svg.encode())
    assert not [e for e in root.iter() if e.tag == f"{SVG}script"]
    shown = " ".join((e.text or "") for e in root.iter())
    assert HOSTILE_POOL in shown and "]]>\\x1b[31mred" in shown  # escaped in the source, read back as written


def test_pictures_write_files_only_through_the_atomic_file_kit():
    package = ROOT / "components" / "gpupools"
    for path in [*sorted((package / "pictures").glob("*.py")), package / "cli" / "pictures.py"]:
        called = {
            node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call)
        }
        assert not called & {"open", "write_text", "write_bytes", "mkstemp", "fdopen", "write"}, path
    assert "write_atomically" in (package / "cli" / "pictures.py").read_text()


def test_the_svg_check_runs_before_the_fit(tmp_path):
    with mock.patch("gpupools.cli.fit.fit_demand") as fit:
        run = run_cli("fit", str(EXAMPLE), "--svg", str(tmp_path))
    assert run.code == 2 and not fit.called


BALANCED = {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}


def test_a_node_cut_per_gpu_draws_each_of_its_layouts(tmp_path):
    document = yaml.safe_load((ROOT / "Pulumi.eks.yaml").read_text())
    document["config"]["gpupools:gpuPools"][0]["mig"] = {
        "layout": [{"gpus": 6, "mix": BALANCED}, {"gpus": 2, "whole": True}]
    }
    path = tmp_path / "Pulumi.pergpu.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    run = run_cli("check", "--config", str(path), "--ascii")
    assert run.code == 0, run.err
    part = _layout_part(run.out)
    assert "A100-40GB: 1g.5gb x2, 2g.10gb x1, 3g.20gb x1 (pool p4d-balanced: 6 GPUs)" in part
    assert "A100-40GB, whole (no MIG) (pool p4d-balanced: 2 GPUs)" in part
    stack = load_stack(read_stack_file(path).config)
    root = ElementTree.fromstring(render_svg(stack_picture(stack.pools), "per GPU").encode())
    kinds = Counter(e.get("class") for e in root.iter() if e.tag == f"{SVG}rect")
    assert kinds["instance"] == 6 * sum(BALANCED.values()) and kinds["whole"] == 2 and kinds["node"] == 1


def test_the_comment_draws_every_layout_of_a_node_before_and_after():
    gpu = GPU_MODELS["A100-40GB"]
    balanced = tuple(sorted(BALANCED.items()))
    before = Picture((entries_picture("p", "s", gpu, [balanced] * 8, 1),))
    after = Picture((entries_picture("p", "s", gpu, [balanced] * 6 + [None] * 2, 1),))
    [block] = "\n".join(changed_layouts(before, after, ["p"])).split("```text\n")[1:]
    headings = [line for line in block.splitlines() if line.startswith(("before:", "after:"))]
    assert headings == [
        "before: A100-40GB: 1g.5gb x2, 2g.10gb x1, 3g.20gb x1 (8 per node, 1 node)",
        "after: A100-40GB: 1g.5gb x2, 2g.10gb x1, 3g.20gb x1 (6 per node, 1 node)",
        "after: A100-40GB, whole (no MIG) (2 per node, 1 node)",
    ]
    assert changed_layouts(before, after, ["other"]) == []


def _base(tmp_path: Path, layouts: list) -> Path:
    path = tmp_path / "base.json"
    path.write_text(json.dumps({"capacity": [], "gpuLayouts": layouts}))
    return path


def test_a_base_plans_layouts_are_checked_before_they_are_drawn(tmp_path):
    from gpupools.config.errors import ConfigError
    from gpupools.pictures.from_plan import plan_json_picture
    from gpupools.plan.base import read_base_plan

    entry = {"pool": "p", "gpu": "A100-40GB", "nodes": 1, "layout": [{"gpus": 8, "mix": {"1g.5gb": 7}}]}
    drawn = plan_json_picture(read_base_plan(_base(tmp_path, [entry])))
    assert drawn is not None and [gpu.spare for gpu in drawn.pools[0].node_gpus] == [(7,)] * 8
    with pytest.raises(ConfigError) as refused:
        read_base_plan(_base(tmp_path, [{**entry, "pool": HOSTILE_POOL}]))
    assert "gpuLayouts[0].pool" in str(refused.value.problems[0])
    eight = {**entry, "layout": [{"gpus": 8, "mix": {"1g.5gb": 8}}]}  # well-shaped, but no A100 holds it
    drawn = plan_json_picture(read_base_plan(_base(tmp_path, [eight])))
    assert drawn is not None and drawn.pools == () and "pool p:" in drawn.notes[0]
    assert plan_json_picture({"capacity": []}) is None


def test_a_very_large_answer_draws_its_first_nodes_and_says_so():
    from gpupools.pictures.svg import MAX_NODES

    gpu = GPU_MODELS["A100-80GB"]
    pool = entries_picture("big", "s", gpu, [(("7g.80gb", 1),)] * 8, MAX_NODES + 5)
    root = ElementTree.fromstring(render_svg(Picture((pool,)), "big").encode())
    assert len([e for e in root.iter() if e.get("class") == "node"]) == MAX_NODES
    texts = [e.text for e in root.iter() if e.tag == f"{SVG}text"]
    assert f"note: the first {MAX_NODES} of {MAX_NODES + 5} nodes are drawn" in texts


def test_a_fit_of_many_nodes_draws_the_first_and_counts_them_all(tmp_path):
    """A fit of thousands of nodes draws at most the SVG's first nodes, and counts the rest from the answer."""
    from gpupools.pictures.svg import MAX_NODES

    demand = tmp_path / "big.yaml"
    workloads = [{"name": f"w{i}", "slice": "7g.40gb", "count": 10_000} for i in range(3)]
    demand.write_text(
        yaml.safe_dump({"cloud": "aws", "region": "us-east-1", "size": "p4d.24xlarge", "workloads": workloads})
    )
    answer = json.loads(run_cli("fit", str(demand), "--json").out)
    assert answer["nodes"] == 30_000 // 8  # one 7g.40gb per GPU, eight GPUs a node
    svg = tmp_path / "big.svg"
    assert run_cli("fit", str(demand), "--svg", str(svg)).code == 0
    root = _svg(svg)
    assert len([e for e in root.iter() if e.get("class") == "node"]) == MAX_NODES
    texts = [e.text for e in root.iter() if e.tag == f"{SVG}text"]
    assert f"note: the first {MAX_NODES} of {answer['nodes']} nodes are drawn" in texts
