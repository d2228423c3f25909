"""``gpupools plan --base``: what a change does to GPU capacity, from two real offline plans.

Expected figures are NVIDIA's per-GPU MIG counts times the 8 A100s of a Standard_ND96asr_v4 (1g.5gb x7 -> 56,
3g.20gb x2 -> 16), and the AKS rule that a pool's GPU instance profile cannot change after creation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpupools.catalog.prices import snapshot
from gpupools.plan.diff import diff_plans
from gpupools.cli import main
from support.plan_once import one_program_run_per_stack_file
from support.plan_stacks import base_checkout, pr_comment
from support.stack_files import plan_file

REPO = Path(__file__).resolve().parents[2]


def _stack(tmp_path: Path, name: str, edit) -> Path:
    document = yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text())
    edit(document["config"])
    path = tmp_path / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("diff")

    def mig3g(config):
        config["gpupools:gpuPools"][0]["mig"] = {"profile": "MIG3g"}
        config["gpupools:gpuSoftware"]["migStrategy"] = "mixed"

    def two_nodes(config):
        config["gpupools:gpuPools"][0]["count"] = 2

    def second_pool(config):
        config["gpupools:gpuPools"].append(
            {"name": "mig7g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG7g"}}
        )

    return {
        "base": plan_file(REPO / "Pulumi.dev.yaml").to_json(),
        "mig3g": plan_file(_stack(folder, "mig3g", mig3g)).to_json(),
        "two": plan_file(_stack(folder, "two", two_nodes)).to_json(),
        "added": plan_file(_stack(folder, "added", second_pool)).to_json(),
    }


def test_a_new_mig_profile_replaces_the_pool_and_says_capacity_is_removed(plans):
    diff = diff_plans(plans["base"], plans["mig3g"])
    (pool,) = diff.pools
    assert pool.change == "replaced" and "gpuInstanceProfile" in pool.replaced_by
    assert (pool.resources["nvidia.com/gpu"].before, pool.resources["nvidia.com/gpu"].after) == (56, 0)
    assert (pool.resources["nvidia.com/mig-3g.20gb"].before, pool.resources["nvidia.com/mig-3g.20gb"].after) == (0, 16)
    assert (pool.nodes.before, pool.nodes.after, pool.gpus.after) == (1, 1, 8)
    assert diff.removes_capacity
    assert diff.headline().startswith("This change REMOVES GPU capacity")


def test_more_nodes_change_the_pool_in_place_and_add_capacity(plans):
    diff = diff_plans(plans["base"], plans["two"])
    (pool,) = diff.pools
    assert pool.change == "changed" and pool.replaced_by == ()
    assert (pool.resources["nvidia.com/gpu"].before, pool.resources["nvidia.com/gpu"].after) == (56, 112)
    assert (diff.gpus.before, diff.gpus.after) == (8, 16)
    assert not diff.removes_capacity and diff.headline().startswith("This change adds GPU capacity")


def test_added_and_removed_pools(plans):
    added = diff_plans(plans["base"], plans["added"])
    assert [(p.pool, p.change) for p in added.pools] == [("mig1g", "unchanged"), ("mig7g", "added")]
    assert added.resources["nvidia.com/gpu"].after == 56 + 8  # MIG7g: one 7g.40gb per GPU
    removed = diff_plans(plans["added"], plans["base"])
    assert [(p.pool, p.change) for p in removed.pools] == [("mig1g", "unchanged"), ("mig7g", "removed")]
    assert removed.removes_capacity


def test_the_same_plan_changes_nothing(plans):
    diff = diff_plans(plans["base"], plans["base"])
    assert not diff.changed and not diff.removes_capacity
    assert diff.headline() == "This change does not change GPU capacity"


def test_plan_base_puts_the_diff_first_in_every_format(plans, tmp_path, capsys):
    base = tmp_path / "base.json"
    base.write_text(json.dumps(plans["base"]))
    head = _stack(
        tmp_path,
        "head",
        lambda c: (
            c["gpupools:gpuPools"][0].update(mig={"profile": "MIG3g"})
            or c["gpupools:gpuSoftware"].update(migStrategy="mixed")
        ),
    )
    with one_program_run_per_stack_file():  # three formats of one stack file: its program runs once
        assert main(["plan", "--config", str(head), "--base", str(base)]) == 0
        assert capsys.readouterr().out.startswith(
            "This change REMOVES GPU capacity: mig1g: 56× nvidia.com/gpu → 16× nvidia.com/mig-3g.20gb, "
            "each slice grew from 1g.5gb to 3g.20gb"
        )
        assert main(["plan", "--config", str(head), "--base", str(base), "--format", "markdown"]) == 0
        # The stack's heading comes first, and it is the headline (issue 27).
        assert capsys.readouterr().out.startswith("### `head` (azure): :warning: This change REMOVES GPU capacity")
        assert main(["plan", "--config", str(head), "--base", str(base), "--json"]) == 0
        diff = json.loads(capsys.readouterr().out)["diff"]
    assert diff["removesCapacity"] is True and diff["pools"][0]["change"] == "replaced"


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"stack": "x"}'])
def test_a_bad_base_is_one_error_naming_it(tmp_path, capsys, content):
    base = tmp_path / "base.json"
    base.write_text(content)
    assert main(["plan", "--stack", "dev", "--base", str(base)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: --base {base}")


def test_the_pull_request_comment_leads_with_capacity_removed(tmp_path):
    """plan_stacks.sh with the real gpupools: the base ran two dev nodes, the head one; the base cannot plan `eks`
    and lacks `existing`, which is then all new."""
    import shutil

    base = base_checkout(tmp_path / "base")
    shutil.copy(REPO / "Pulumi.yaml", base)
    _stack(base, "dev", lambda c: c["gpupools:gpuPools"][0].update(count=2))
    (base / "Pulumi.eks.yaml").write_text("config:\n  gpupools:cloud: gcp\n")
    lines = pr_comment(base, timeout=120)
    assert lines[0].startswith("**:warning: This pull request REMOVES GPU capacity in: dev**")
    # Beside capacity, what each compared stack costs: one dev node fewer at the snapshot's southcentralus price;
    # `existing` names no region, so no price applies.
    # `existing-eks`, new to the base, adds its one p4d.24xlarge at the us-east-1 price; `karpenter`, new too, runs
    # no node at rest, and says what its pools cost at their most nodes.
    node = snapshot().lookup("Standard_ND96asr_v4", "southcentralus", "onDemand").per_hour
    p4d = snapshot().lookup("p4d.24xlarge", "us-east-1", "onDemand").per_hour
    g6e = snapshot().lookup("g6e.12xlarge", "us-east-1", "onDemand").per_hour
    most = (2 * p4d + 4 * g6e) * 730  # Pulumi.karpenter.yaml: maxCount 2 of p4d.24xlarge, 4 of g6e.12xlarge
    assert lines[0].endswith(
        f" List price: dev saves ${node * 730:,.2f}/month, existing-eks adds ${p4d * 730:,.2f}/month, karpenter no "
        f"change in list price, up to ${most:,.2f}/month more at every pool's most nodes."
    ), lines[0]
    assert "unknown" not in lines[0] and "existing " not in lines[0]  # unpriced: said in its own heading, once
    assert any(
        line.startswith(
            "### `dev` (azure): :warning: This change REMOVES GPU capacity: "
            "mig1g: 112× nvidia.com/gpu → 56× nvidia.com/gpu; "
        )
        and f"saves ${node * 730:,.2f}/month" in line
        for line in lines
    ), lines
    assert any(line.startswith("_The base commit could not plan `eks`") for line in lines)
    assert any(
        line.startswith(
            "### `existing` (azure): This change adds GPU capacity: mig1g: none → 56× nvidia.com/mig-1g.5gb; "
            "mig3g: none → 16× nvidia.com/mig-3g.20gb; unpriced: no region"
        )
        for line in lines
    )
    assert sum("unpriced: no region" in line for line in lines) == 1
