"""A MIG layout change on a live pool the GPU Operator cuts (issue 37): EKS p4d ``all-1g.5gb`` → ``all-balanced``.

Without ``rotation: surge`` the layout is a node label updated in place, so the node group stays; the MIG manager then
re-cuts the running node,
pausing NVIDIA's daemonsets and failing while a GPU pod runs there (NVIDIA/mig-parted v0.15.0
``pkg/mig/reconfigure/reconfigure.go``; NVIDIA's gpu-operator-mig docs, read below when ``../shared`` is there). So
the plan calls it capacity offline, in JSON, text and the pull request comment, and names the drain; each ``kubectl``
command it prints is parsed by the real kubectl (when installed), which refuses an unknown flag or a bad jsonpath
before it dials the server. A surge pool the operator cuts hashes its layout into its generation instead, so the same
change is a new node group created before the old one is deleted, on EKS and AKS alike.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from support.cli import run_cli
from support.plan_once import one_program_run_per_stack_file
from support.stack_files import REPO, write_stack_file

REFERENCE = REPO.parent / "shared" / "reference" / "gpu-operator" / "docs" / "gpu-operator-mig.rst"
POOL = "p4d-balanced"
STEPS = [
    f"kubectl cordon -l gpupools.io/pool={POOL}",
    f"kubectl drain -l gpupools.io/pool={POOL} --ignore-daemonsets --delete-emptydir-data",
    "pulumi up",
    f"kubectl wait node -l gpupools.io/pool={POOL} "
    "--for=jsonpath='{.metadata.labels.nvidia\\.com/mig\\.config\\.state}'=success --timeout=30m",
    f"kubectl uncordon -l gpupools.io/pool={POOL}",
]


def _eks(layout: str = "all-balanced", **pool) -> dict:
    raw = yaml.safe_load((REPO / "Pulumi.eks.yaml").read_text())["config"]
    raw["gpupools:gpuPools"][0].update({"mig": {"layout": layout}, **pool})
    return raw


def _diff(folder: Path, base: dict, head: dict, *formats: str) -> dict[str, str]:
    """Each format's output of ``plan --base`` for ``head`` against ``base``'s plan JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    base_json = folder / "base.json"
    out = {}
    with one_program_run_per_stack_file():
        base_json.write_text(run_cli("plan", "--json", "--config", str(write_stack_file(folder, base, "eks"))).out)
        (folder / "head").mkdir()
        head_file = write_stack_file(folder / "head", head, "eks")
        for name in formats:
            flags = {"json": ["--json"], "text": [], "markdown": ["--format", "markdown"]}[name]
            run = run_cli("plan", "--config", str(head_file), "--base", str(base_json), *flags)
            assert run.code == 0, run.err
            out[name] = run.out
    return out


@pytest.fixture(scope="module")
def recut(tmp_path_factory) -> dict[str, str]:
    before, after = _eks("all-1g.5gb", rotation="recreate"), _eks(rotation="recreate")
    return _diff(tmp_path_factory.mktemp("recut"), before, after, "json", "text", "markdown")


def test_the_json_says_capacity_goes_offline_and_how_to_drain(recut):
    diff = json.loads(recut["json"])["diff"]
    assert diff["takesCapacityOffline"] is True
    [pool] = diff["pools"]
    assert pool["change"] == "changed" and pool["replacement"] is None  # the node group stays: its nodes are re-cut
    assert pool["inPlace"]["outage"] is True and pool["inPlace"]["steps"] == STEPS
    assert "MIG layout all-1g.5gb → all-balanced on 1 running node" in pool["inPlace"]["description"]
    assert "(nvidia.com/mig.config.state=failed)" in pool["inPlace"]["description"]


def test_the_text_leads_with_the_outage_and_lists_the_commands(recut):
    first, *rest = recut["text"].splitlines()
    assert first.startswith(
        "This change REMOVES GPU capacity: p4d-balanced: 56× nvidia.com/mig-1g.5gb → 16× nvidia.com/mig-1g.5gb, "
        "8× nvidia.com/mig-2g.10gb, 8× nvidia.com/mig-3g.20gb, layout all-1g.5gb → all-balanced; "
        "OFFLINE meanwhile: p4d-balanced (8 GPUs) is re-cut in place: its GPU pods must leave first"
    )
    assert [line.strip().removeprefix("run: ") for line in rest if line.strip().startswith("run: ")] == STEPS


def test_the_pr_comment_warns_and_shows_the_commands_as_a_block(recut):
    heading, *rest = recut["markdown"].splitlines()
    assert heading.startswith("### `eks` (aws): :warning: This change REMOVES GPU capacity: ")
    assert "OFFLINE meanwhile: p4d-balanced (8 GPUs) is re-cut in place" in heading
    assert f"| {POOL} | changed (OFFLINE) | 1 | 8 |" in rest
    start = rest.index("  ```sh")
    assert [line.strip() for line in rest[start + 1 : start + 1 + len(STEPS)]] == STEPS


def test_a_pool_without_nodes_is_relabelled_without_an_outage(tmp_path):
    out = _diff(tmp_path, _eks("all-1g.5gb", count=0), _eks(count=0), "json")
    [pool] = json.loads(out["json"])["diff"]["pools"]
    assert pool["inPlace"] == {
        "description": "MIG layout all-1g.5gb → all-balanced: applied in place (the pool has no nodes)",
        "outage": False,
    }


def test_an_autoscaled_pool_planned_at_zero_may_still_run_nodes(tmp_path):
    """count 0 with autoscaling up to 2: the autoscaler may be running two nodes, so the re-cut is an outage."""
    scaled = {"count": 0, "autoscaling": {"minCount": 0, "maxCount": 2}}
    out = _diff(tmp_path, _eks("all-1g.5gb", **scaled), _eks(**scaled), "json")
    [pool] = json.loads(out["json"])["diff"]["pools"]
    assert pool["inPlace"]["outage"] is True and pool["inPlace"]["steps"] == STEPS
    assert "all-1g.5gb → all-balanced on up to 2 running nodes" in pool["inPlace"]["description"]


@pytest.fixture(scope="module")
def surge(tmp_path_factory) -> dict[str, str]:
    """The shipped EKS pool as it is, a surge pool (its default with a node), cut by the GPU Operator."""
    return _diff(tmp_path_factory.mktemp("surge"), _eks("all-1g.5gb"), _eks(), "json", "text", "markdown")


def test_a_surge_pools_layout_change_is_a_new_node_group_created_first(surge):
    diff = json.loads(surge["json"])["diff"]
    [pool] = diff["pools"]
    assert pool["change"] == "replaced" and pool["inPlace"] is None
    replacement = pool["replacement"]
    assert replacement["rotation"] == "surge" and replacement["order"] == "create-first"
    assert replacement["takesCapacityOffline"] is False and "aliasedFrom" not in replacement
    assert replacement["oldName"] != replacement["newName"]
    assert all(name.startswith(f"{POOL}-") for name in (replacement["oldName"], replacement["newName"]))
    assert diff["takesCapacityOffline"] is False


def test_a_surge_pools_layout_change_says_created_before_deleted_and_no_drain(surge):
    first = surge["text"].splitlines()[0]
    assert "layout all-1g.5gb → all-balanced" in first and "OFFLINE" not in first
    assert f"pool {POOL}: replaced by surge: new pool {POOL}-" in surge["text"]
    assert "is created before" in surge["text"] and "kubectl drain" not in surge["text"]
    heading = surge["markdown"].splitlines()[0]
    assert "OFFLINE" not in heading and "kubectl drain" not in surge["markdown"]
    # The tree: a new ManagedNodeGroup added and the old one deleted, two resources, not one replaced.
    groups = [line for line in surge["text"].splitlines() if "eks:index:ManagedNodeGroup  p4d-balanced-" in line]
    assert sorted(line.strip()[0] for line in groups) == ["+", "-"]


def _aks(tmp_path: Path, rotation: str) -> dict:
    """The shipped AKS pool, cut by the GPU Operator, from all-1g.5gb to all-balanced: its diff entry."""
    raw = yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text())["config"]
    raw["gpupools:gpuSoftware"] = {"installer": "gpu-operator", "driver": "operator", "version": "v26.7.0"}
    raw["gpupools:gpuSoftware"].update(migStrategy="mixed", gfd=True)
    raw["gpupools:gpuPools"][0]["rotation"] = rotation
    before, after = json.loads(json.dumps(raw)), raw
    before["gpupools:gpuPools"][0]["mig"] = {"layout": "all-1g.5gb"}
    after["gpupools:gpuPools"][0]["mig"] = {"layout": "all-balanced"}
    folder = tmp_path / "aks"
    folder.mkdir()
    base_json = folder / "base.json"
    with one_program_run_per_stack_file():
        base_json.write_text(run_cli("plan", "--json", "--config", str(write_stack_file(folder, before, "dev"))).out)
        (folder / "head").mkdir()
        head = write_stack_file(folder / "head", after, "dev")
        run = run_cli("plan", "--json", "--config", str(head), "--base", str(base_json))
    assert run.code == 0, run.err
    return json.loads(run.out)["diff"]


def test_an_aks_pool_the_operator_cuts_is_re_cut_the_same_way(tmp_path):
    """AKS updates a pool's nodeLabels in place too: the same outage and drain, under the pool's own name."""
    [pool] = _aks(tmp_path, "recreate")["pools"]
    assert pool["change"] == "changed" and pool["inPlace"]["outage"] is True
    assert (
        pool["inPlace"]["steps"][1]
        == "kubectl drain -l gpupools.io/pool=mig1g --ignore-daemonsets --delete-emptydir-data"
    )


def test_an_aks_surge_pool_the_operator_cuts_gets_a_new_agent_pool_first(tmp_path):
    diff = _aks(tmp_path, "surge")
    [pool] = diff["pools"]
    assert pool["change"] == "replaced" and pool["inPlace"] is None
    replacement = pool["replacement"]
    assert replacement["order"] == "create-first" and replacement["takesCapacityOffline"] is False
    assert replacement["oldName"] != replacement["newName"]
    assert diff["takesCapacityOffline"] is False and "OFFLINE" not in diff["headline"]


def test_nvidia_asks_for_no_gpu_workloads_and_a_cordon():
    """The docs the outage and the drain rest on (a copy of NVIDIA/cloud-native-docs at 52dcb7b8)."""
    if not REFERENCE.exists():
        pytest.skip("../shared/reference is not here")
    text = " ".join(REFERENCE.read_text().split())
    assert "MIG Manager requires that no user workloads are running on the GPUs being configured." in text
    assert "the node might need to be cordoned before changing the MIG mode or the MIG geometry" in text
    assert "to Failed" in text  # the state a failed reconfiguration leaves


@pytest.mark.parametrize("step", [step for step in STEPS if step.startswith("kubectl ")])
def test_kubectl_parses_each_command(step, tmp_path):
    """kubectl checks flags and the jsonpath before it dials: a valid command fails only on the connection."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    config = tmp_path / "kubeconfig"
    config.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:9'}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {token: t}}]\n"
    )
    argv = [kubectl, "--kubeconfig", str(config), "--request-timeout=2s", *shlex.split(step)[1:]]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "connection" in run.stderr and "refused" in run.stderr, run.stderr
    assert "unknown" not in run.stderr.lower().replace("unhandled error", "")


def test_a_base_plans_layout_name_reaches_the_headline_only_when_it_is_a_name():
    """A base plan is untrusted: a layout that is no layout name (escape codes, Markdown) stays out of the headline."""
    from gpupools.plan.diff import diff_plans

    head = json.loads((Path(__file__).parent / "previous_release" / "eks.plan.json").read_text())
    base = json.loads(json.dumps(head))
    base["outputs"]["gpuPools"][POOL]["migLayout"] = "all-1g.5gb"
    assert diff_plans(base, head).headline() == (
        "This change re-cuts GPU pools: p4d-balanced: 16× nvidia.com/mig-1g.5gb, 8× nvidia.com/mig-2g.10gb, "
        "8× nvidia.com/mig-3g.20gb → 16× nvidia.com/mig-1g.5gb, 8× nvidia.com/mig-2g.10gb, 8× nvidia.com/mig-3g.20gb, "
        "layout all-1g.5gb → all-balanced"
    )
    base["outputs"]["gpuPools"][POOL]["migLayout"] = "\x1b[2J](https://example.com)"
    assert "\x1b" not in diff_plans(base, head).headline() and "example.com" not in diff_plans(base, head).headline()
