"""deploy.yml's `pulumi up` outlives the federated token azure/login exchanged (about 10 minutes: Azure/login#180,
Azure/azure-cli#28708): azure-native gets what it needs to fetch fresh tokens itself, and the AWS role session lasts
as long as the job may run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "deploy.yml"


def _up_job() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["up"]


def _step_using(job: dict[str, Any], action: str) -> dict[str, Any]:
    [step] = [step for step in job["steps"] if step.get("uses", "").split("@")[0] == action]
    return step


def test_azure_native_fetches_its_own_tokens_with_oidc() -> None:
    job = _up_job()
    env = job["env"]
    # The provider reads these names (docs/sources.md); "true" as a string, as the provider parses it.
    assert env["ARM_USE_OIDC"] == "true"
    login = _step_using(job, "azure/login")["with"]
    # The same identity as the CLI login: the provider's token exchange must name the same app and tenant.
    assert env["ARM_CLIENT_ID"] == login["client-id"] == "${{ vars.AZURE_CLIENT_ID }}"
    assert env["ARM_TENANT_ID"] == login["tenant-id"] == "${{ vars.AZURE_TENANT_ID }}"
    assert env["ARM_SUBSCRIPTION_ID"] == login["subscription-id"] == "${{ vars.AZURE_SUBSCRIPTION_ID }}"
    # GitHub hands the job ACTIONS_ID_TOKEN_REQUEST_URL/TOKEN only with this permission.
    assert job["permissions"]["id-token"] == "write"


def test_no_static_federated_token_is_passed() -> None:
    """A fixed ARM_OIDC_TOKEN would expire like the CLI's; the provider must request its own."""
    job = _up_job()
    envs = [job.get("env") or {}] + [step.get("env") or {} for step in job["steps"]]
    assert not [name for env in envs for name in env if name in ("ARM_OIDC_TOKEN", "ARM_OIDC_TOKEN_FILE_PATH")]


def test_aws_role_session_lasts_as_long_as_the_job() -> None:
    job = _up_job()
    aws = _step_using(job, "aws-actions/configure-aws-credentials")["with"]
    seconds = int(aws["role-duration-seconds"])
    # The action's default (and a role's default MaxSessionDuration) is one hour, shorter than the job may run.
    assert seconds > 3600
    assert seconds >= job["timeout-minutes"] * 60
    # IAM allows at most 12 hours.
    assert seconds <= 12 * 3600


def test_ci_docs_say_how_to_raise_the_role_max() -> None:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "--max-session-duration" in text and "MaxSessionDuration" in text
    assert "ARM_USE_OIDC" in text
