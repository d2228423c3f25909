"""The ``gpupools:*`` keys of the running stack, as plain Python values, for validation."""

import json
from typing import Any

from pulumi.runtime import config as runtime_config

NAMESPACE = "gpupools:"


def read_pulumi_config() -> dict[str, Any]:
    """Every key of the namespace, unknown ones included, so a typo is reported instead of ignored."""
    everything = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    return {key: _decode(value) for key, value in everything.items() if key.startswith(NAMESPACE)}


def _decode(value: Any) -> Any:
    # Pulumi hands object values to the program as JSON text and plain strings as they are.
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value
