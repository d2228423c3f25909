"""Secret config values are never printed: not offline (``secure:`` ciphertext, in every output format and in
errors) and not under ``pulumi up``, where the engine tells the program which keys are secret
(``PULUMI_CONFIG_SECRET_KEYS``, or the runtime's secret key set) and a wrong secret value is redacted from
the error that stops the deployment.
"""

from __future__ import annotations

import json
from pathlib import Path

import pulumi
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupools.config import ConfigError, Problem
from gpupools.testing import RecordingMocks, run_program
from support.base_configs import VALID_AWS as VALID
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
SECRETS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
# Secret text that is easy to find in output and survives YAML, JSON and repr() unchanged.
secret_text = st.from_regex(r"s3cr3t[A-Za-z0-9]{8,24}", fullmatch=True)


def stack_yaml(config: dict) -> str:
    return "config:\n" + "".join(f"  {key}: {json.dumps(value)}\n" for key, value in config.items())


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("secrets")


@SECRETS
@given(
    ciphertext=secret_text,
    key=st.sampled_from(["gpupools:cloud", "gpupools:cluster", "gpupools:tags", "aws:secretKey"]),
    nested=st.booleans(),
    command=st.sampled_from(["check", "plan"]),
    output=st.sampled_from(["text", "json", "markdown"]),
)
def test_secure_values_never_reach_any_output(folder, ciphertext, key, nested, command, output):
    secure = {"secure": ciphertext}
    config = dict(VALID)
    config[key] = {"team": secure} if nested and key == "gpupools:tags" else secure
    path = folder / "Pulumi.s.yaml"
    path.write_text(stack_yaml(config))
    outcome = run_cli(command, "--config", str(path), "--format", output)
    code, text = outcome.code, outcome.out + outcome.err
    assert ciphertext not in text
    assert code in (0, 2) and "Traceback" not in text
    if key in ("gpupools:cloud", "gpupools:cluster"):
        assert code == 2  # a placeholder is never a valid cloud or cluster


def test_redacted_hides_raw_escaped_and_json_object_secrets():
    error = ConfigError(
        [
            Problem("gpupools:cloud", "Input should be 'azure' or 'aws' (got 'hunter2')"),
            Problem("gpupools:cluster.name", "'tab\\there' is not valid"),
            Problem("gpupools:tags.pw", 'got "p@ss\\"word"'),
            Problem("gpupools:gpuPools[0].size", "unknown size 'Standard_Secret_v9'"),
        ]
    )
    hidden = error.redacted(
        ["hunter2", "tab\there", 'p@ss"word', json.dumps([{"name": "x", "size": "Standard_Secret_v9", "count": 2}])]
    )
    text = str(hidden)
    for secret in ("hunter2", "tab", "p@ss", "Standard_Secret_v9"):
        assert secret not in text
    assert text.count("[secret]") == 4
    assert "gpuPools[0]" in text  # short numbers (counts, indexes) are not treated as secret text


def test_redacted_without_secrets_is_the_same_error():
    error = ConfigError([Problem("gpupools:cloud", "is required")])
    assert error.redacted([]) is error and error.redacted(["", None]).problems == error.problems


BAD_CLOUD = {**{key: json.dumps(value) if not isinstance(value, str) else value for key, value in VALID.items()}}


@SECRETS
@given(secret=secret_text, key=st.sampled_from(["gpupools:cloud", "gpupools:cluster", "gpupools:gpuPools"]))
def test_program_redacts_secret_config_from_its_error(secret, key):
    # Under `pulumi up` the engine marks the key secret; the wrong value must not appear in the RunError.
    value = {
        "gpupools:cloud": secret,
        "gpupools:cluster": json.dumps({"name": "gpu-eks", "region": secret, "systemPool": {"size": "m6i.large"}}),
        "gpupools:gpuPools": json.dumps([{"name": "p4d", "size": secret}]),
    }[key]
    mocks = RecordingMocks()
    with pytest.raises(pulumi.RunError) as raised:
        run_program(
            ROOT / "infra",
            project="gpupools",
            stack="s",
            mocks=mocks,
            config={**BAD_CLOUD, key: value},
            secret_keys=[key],
        )
    message = str(raised.value)
    assert "invalid gpupools config" in message and key in message
    assert secret not in message and "[secret]" in message
    assert mocks.resources == []


def test_program_reads_secret_keys_from_the_engine_environment(monkeypatch):
    # The language host passes secret keys in PULUMI_CONFIG_SECRET_KEYS (pulumi/runtime/config.py).
    monkeypatch.setenv("PULUMI_CONFIG_SECRET_KEYS", json.dumps(["gpupools:cloud"]))
    with pytest.raises(pulumi.RunError) as raised:
        run_program(ROOT / "infra", project="gpupools", stack="s", config={**BAD_CLOUD, "gpupools:cloud": "hunter2"})
    assert "hunter2" not in str(raised.value) and "gpupools:cloud" in str(raised.value)


def test_a_wrong_value_that_is_not_secret_is_still_shown():
    with pytest.raises(pulumi.RunError, match="hunter2"):
        run_program(ROOT / "infra", project="gpupools", stack="s", config={**BAD_CLOUD, "gpupools:cloud": "hunter2"})
