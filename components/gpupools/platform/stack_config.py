"""The ``gpupools:*`` keys of the running stack, as plain Python values, for validation, and the secret ones.

The engine hands the program its config (``PULUMI_CONFIG``, or ``set_all_config`` under mocks) and which
keys are secret (``PULUMI_CONFIG_SECRET_KEYS``, or the runtime's secret key set); errors must not echo those.
"""

import os
from functools import cache
from typing import Any

from pulumi.runtime import is_config_secret

from ..config.errors import REDACT_ALL, ConfigError, Problem
from ..pulumi_internals import config_values
from ..untrusted.strict_json import JsonRefused, strict_loads

NAMESPACE = "gpupools:"


def _everything() -> dict[str, Any]:
    """The engine's config: ``PULUMI_CONFIG`` (a JSON object of strings) under the runtime's own settings."""
    text = os.environ.get("PULUMI_CONFIG")
    environment: Any = {}
    if text is not None:
        try:
            environment = strict_loads(text)
        except JsonRefused:
            raise ConfigError(
                [
                    Problem(
                        "PULUMI_CONFIG",
                        "is not valid JSON; the Pulumi engine sets it to a JSON object of config keys, or unset it",
                    )
                ]
            ) from None
        if not isinstance(environment, dict):
            raise ConfigError(
                [
                    Problem(
                        "PULUMI_CONFIG",
                        f"is a JSON {type(environment).__name__}, not an object "
                        "of config keys; unset it or give an object",
                    )
                ]
            )
    return {**environment, **config_values()}


def read_pulumi_config() -> dict[str, Any]:
    """Every key of the namespace, unknown ones included, so a typo is reported instead of ignored."""
    return {key: _decode(value) for key, value in _everything().items() if key.startswith(NAMESPACE)}


def secret_config_values() -> list[Any]:
    """The values of every secret key, in any namespace, as the program received them (text or JSON text).

    When ``PULUMI_CONFIG_SECRET_KEYS`` cannot be read, which values are secret is unknown: ``[REDACT_ALL]``,
    and ``ConfigError.redacted`` then shows no config text at all (fail closed)."""
    text = os.environ.get("PULUMI_CONFIG_SECRET_KEYS")
    try:
        keys = strict_loads(text) if text is not None else []
    except JsonRefused:
        keys = None
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        return [REDACT_ALL]
    secret_keys = set(keys)
    try:
        everything = _everything()
    except ConfigError:
        return [REDACT_ALL]
    secret_keys |= {key for key in everything if is_config_secret(key)}
    values = [everything[key] for key in sorted(secret_keys) if key in everything]
    return values + sorted({key for value in values for key in _user_keys(_decode(value))})


def _user_keys(value: Any) -> list[str]:
    """The keys of a secret object that the user chose (label and tag keys, size names), not config field names:
    a secret labels map's keys are as secret as its values."""
    if isinstance(value, list):
        return [key for item in value for key in _user_keys(item)]
    if not isinstance(value, dict):
        return []
    return [
        key for key, item in value.items() for key in ([key] if key not in _field_names() else []) + _user_keys(item)
    ]


@cache
def _field_names() -> frozenset[str]:
    """Every key the stack config schema defines (``name``, ``labels``, ``vpcId``, ...), by its pydantic models."""
    from pydantic import BaseModel

    from ..config import models

    names = set()
    for item in vars(models).values():
        if isinstance(item, type) and issubclass(item, BaseModel):
            for name, info in item.model_fields.items():
                names |= {name, info.alias or name}
    return frozenset(names)


def _decode(value: Any) -> Any:
    # Pulumi hands object values to the program as JSON text and plain strings as they are.
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return strict_loads(value)
        except JsonRefused:
            return value
    return value
