"""The ``gpupools:*`` keys of the running stack, as plain Python values, for validation, and the secret ones.

The engine hands the program its config (``PULUMI_CONFIG``, or ``set_all_config`` under mocks) and which
keys are secret (``PULUMI_CONFIG_SECRET_KEYS``, or the runtime's secret key set); errors must not echo those.
"""

import json
from typing import Any

from pulumi.runtime import config as runtime_config

NAMESPACE = "gpupools:"


def _everything() -> dict[str, Any]:
    return {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}


def read_pulumi_config() -> dict[str, Any]:
    """Every key of the namespace, unknown ones included, so a typo is reported instead of ignored."""
    return {key: _decode(value) for key, value in _everything().items() if key.startswith(NAMESPACE)}


def secret_config_values() -> list[Any]:
    """The values of every secret key, in any namespace, as the program received them (text or JSON text)."""
    secret_keys = set(runtime_config.get_config_secret_keys_env())
    everything = _everything()
    secret_keys |= {key for key in everything if runtime_config.is_config_secret(key)}
    return [everything[key] for key in sorted(secret_keys) if key in everything]


def _decode(value: Any) -> Any:
    # Pulumi hands object values to the program as JSON text and plain strings as they are.
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value
