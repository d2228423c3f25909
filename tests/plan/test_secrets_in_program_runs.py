"""Secret config values never reach what a run prints: ``check`` and ``plan`` on a stack file with ``secure:``
values (every output format), and the stack program under ``pulumi up``, where the engine tells it which keys are
secret (``PULUMI_CONFIG_SECRET_KEYS``, or the runtime's secret key set): a wrong secret value, or any run of six or
more of its characters (rules quote cut values), is redacted from the error that stops the deployment, and a
malformed ``PULUMI_CONFIG_SECRET_KEYS`` hides every config value instead of ending in a traceback.

These run the program under Pulumi's mocks, so they live here rather than beside the redaction rules in
``tests/config`` (``pytest -m pure`` stays free of program runs).
"""

from __future__ import annotations

import json
from pathlib import Path

import pulumi
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupools.testing import RecordingMocks, run_program
from support.base_configs import VALID_AWS
from support.base_configs import VALID_AWS as VALID
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
SECRETS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
# Secret text that is easy to find in output and survives YAML, JSON and repr() unchanged.
secret_text = st.from_regex(r"s3cr3t[A-Za-z0-9]{8,24}", fullmatch=True)
SECRET = "Zq7Xv9Wk2Lp4Rt6Yn8Bm3Hc5Jd1Fg0" * 4  # 120 characters, no word a message would hold


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


def program_error(config: dict, secret_keys: list[str], monkeypatch=None, environment: str | None = None) -> str:
    if environment is not None:
        monkeypatch.setenv("PULUMI_CONFIG_SECRET_KEYS", environment)
    text = {key: value if isinstance(value, str) else json.dumps(value) for key, value in config.items()}
    with pytest.raises(pulumi.RunError) as raised:
        run_program(ROOT / "infra", project="gpupools", stack="s", config=text, secret_keys=secret_keys)
    return str(raised.value)


def no_part_of_the_secret(message: str) -> None:
    for start in range(0, len(SECRET) - 6):
        assert SECRET[start : start + 6] not in message, message


def test_a_long_secret_cut_by_a_rule_is_redacted_whole():
    cluster = {**VALID_AWS["gpupools:cluster"], "vpcId": SECRET, "subnetIds": ["subnet-0123456789abcdef0"]}
    message = program_error({**VALID_AWS, "gpupools:cluster": cluster}, ["gpupools:cluster"])
    assert "gpupools:cluster.vpcId" in message and "[secret]" in message
    no_part_of_the_secret(message)


def test_a_secret_label_key_is_redacted():
    pools = [{**VALID_AWS["gpupools:gpuPools"][0], "labels": {f"bad key {SECRET}": "v"}}]
    message = program_error({**VALID_AWS, "gpupools:gpuPools": pools}, ["gpupools:gpuPools"])
    assert "labels" in message
    no_part_of_the_secret(message)


@pytest.mark.parametrize("environment", ["{not json", '{"a": 1}', "[1, 2]", "null"])
def test_malformed_secret_keys_fail_closed(monkeypatch, environment):
    config = {**VALID_AWS, "gpupools:cloud": SECRET}
    message = program_error(config, [], monkeypatch, environment)
    assert "not shown: PULUMI_CONFIG_SECRET_KEYS is not a JSON list" in message
    assert SECRET[:6] not in message and "Traceback" not in message
