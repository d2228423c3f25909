"""Under ``pulumi up``, no part of a secret reaches the error that stops the deployment, and a malformed
``PULUMI_CONFIG_SECRET_KEYS`` hides every config value instead of ending in a traceback.

Rules quote cut values (``'vpc-...'[:40]``), so redacting whole values is not enough: every run of six or
more characters of a secret is redacted, and so are the keys a user chose in a secret object (label and tag
keys; not the schema's field names).
"""

from __future__ import annotations

import json
from pathlib import Path

import pulumi
import pytest

from gpupools.config import ConfigError, Problem
from gpupools.config.errors import REDACT_ALL
from gpupools.testing import run_program
from support.base_configs import VALID_AWS

ROOT = Path(__file__).resolve().parents[2]
SECRET = "Zq7Xv9Wk2Lp4Rt6Yn8Bm3Hc5Jd1Fg0" * 4  # 120 characters, no word a message would hold


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


def test_redacted_hides_parts_but_not_the_field_names_of_a_secret_object():
    error = ConfigError(
        [
            Problem("gpupools:tags." + SECRET[:40], f"'{SECRET[:80]}' is wrong"),
            Problem("gpupools:cluster.vpcId", f"'{SECRET[3:43]}' is not a valid VPC id"),
        ]
    )
    shown = str(error.redacted([json.dumps({"vpcId": SECRET, "region": "v"})]))
    assert shown.splitlines() == [
        "gpupools:cluster.vpcId: '[secret]' is not a valid VPC id",
        "gpupools:tags.[secret]: '[secret]' is wrong",
    ]


def test_redact_all_hides_every_problem():
    error = ConfigError([Problem("gpupools:cloud", "'x' is wrong"), Problem("gpupools:cluster", "'y' is wrong")])
    assert str(error.redacted([REDACT_ALL])) == (
        "gpupools:*: 2 problems not shown: PULUMI_CONFIG_SECRET_KEYS is not "
        "a JSON list of config keys, so any config value may be a secret"
    )
