"""No part of a secret reaches an error: rules quote cut values (``'vpc-...'[:40]``), so redacting whole values is
not enough: every run of six or more characters of a secret is redacted, and so are the keys a user chose in a
secret object (label and tag keys; not the schema's field names). A malformed ``PULUMI_CONFIG_SECRET_KEYS`` hides
every problem.

The same under the stack program (``pulumi up``) is in ``tests/plan/test_secrets_in_program_runs.py``.
"""

from __future__ import annotations

import json

from gpupools.config import ConfigError, Problem
from gpupools.config.errors import REDACT_ALL

SECRET = "Zq7Xv9Wk2Lp4Rt6Yn8Bm3Hc5Jd1Fg0" * 4  # 120 characters, no word a message would hold


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
