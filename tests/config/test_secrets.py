"""Secret config values are never printed: ``ConfigError.redacted`` hides each secret value wherever a problem
quotes it (raw, escaped, or inside a JSON object), and leaves an error without secrets as it was.

What a run prints (``check``, ``plan``, the stack program under ``pulumi up``) is checked in
``tests/plan/test_secrets_in_program_runs.py``, which runs the program under Pulumi's mocks.
"""

from __future__ import annotations

import json

from gpupools.config import ConfigError, Problem


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
