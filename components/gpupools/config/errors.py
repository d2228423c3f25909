"""One error type for every bad input, carrying one line per problem so users fix them all in one pass.

Problems echo what the user wrote, so each renders through ``untrusted.text`` (control characters escaped, long
values cut), and ``ConfigError.redacted`` replaces secret values before anything is printed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..errors import GpupoolsError
from ..untrusted.strict_json import JsonRefused, strict_loads
from ..untrusted.text import located, terminal_safe

NAMESPACE = "gpupools"
SECRET_PLACEHOLDER = "[secret]"
# A run of at least this many characters of a secret is redacted wherever it appears: a rule that quotes
# ``value[:40]`` must not print a secret's first 40 characters.
MIN_SECRET_PART = 6


class _RedactAll:
    """Passed to ``ConfigError.redacted`` when which values are secret is unknown: nothing from config is shown."""

    def __repr__(self) -> str:
        return "REDACT_ALL"


REDACT_ALL: Any = _RedactAll()


@dataclass(frozen=True, order=True)
class Problem:
    """What is wrong with one config field: ``field`` is the full key path, e.g. ``gpupools:gpuPools[0].mig``."""

    field: str
    message: str

    def __str__(self) -> str:
        # One safe line per problem, whatever the user put in a key or a value.
        return located(self.field, self.message)


@dataclass
class Findings:
    """What a check found: problems (the config is refused) and warnings (advice). Every rule that can
    produce both returns one of these; ``+=`` gathers another check's findings into this one."""

    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def __iadd__(self, other: Findings) -> Findings:
        self.problems += other.problems
        self.warnings += other.warnings
        return self

    def raise_problems(self) -> None:
        """``ConfigError`` with every problem found, if there is one."""
        if self.problems:
            raise ConfigError(self.problems)


class ConfigError(GpupoolsError, ValueError):
    """Raised before any resource is registered; ``str()`` is one line per problem."""

    def __init__(self, problems: list[Problem]):
        self.problems: list[Problem] = sorted(set(problems), key=lambda p: (p.field, p.message))
        super().__init__("\n".join(str(p) for p in self.problems))

    def redacted(self, secret_values: Iterable[Any]) -> ConfigError:
        """The same problems with every secret's text, every part of it (``MIN_SECRET_PART`` characters or more,
        as a rule may quote a cut value), and each key and string inside a secret object as ``[secret]``.
        ``REDACT_ALL`` among the values (the secret keys are unknown) hides every problem's text."""
        values = list(secret_values)
        if any(value is REDACT_ALL for value in values):
            count = len(self.problems)
            return ConfigError(
                [
                    Problem(
                        f"{NAMESPACE}:*",
                        f"{count} problem{'s' if count != 1 else ''} not shown: "
                        "PULUMI_CONFIG_SECRET_KEYS is not a JSON list of config keys, so any config "
                        "value may be a secret",
                    )
                ]
            )
        texts = sorted(
            {form for value in values for text in _secret_texts(value) for form in _spellings(text)},
            key=len,
            reverse=True,
        )
        if not texts:
            return self
        # A short secret ("v", "p4d") is hidden where it stands alone, not inside words ("valid").
        pattern = re.compile(
            "|".join(
                re.escape(text) if len(text) >= MIN_SECRET_PART else rf"(?<!\w){re.escape(text)}(?!\w)"
                for text in texts
            )
        )
        # Parts: only the strings inside secrets, not the JSON text of a secret object (its field names).
        long_texts = sorted(
            {
                form
                for value in values
                for text in _secret_texts(value)
                if not _is_json_object(text)
                for form in _spellings(text)
                if len(form) >= MIN_SECRET_PART
            },
            key=len,
            reverse=True,
        )

        def hide(text: str) -> str:
            parts = pattern.sub(SECRET_PLACEHOLDER, text).split(SECRET_PLACEHOLDER)
            return SECRET_PLACEHOLDER.join(_hide_parts(part, long_texts) for part in parts)

        return ConfigError([Problem(hide(p.field), hide(p.message)) for p in self.problems])


def _hide_parts(text: str, secrets: list[str]) -> str:
    """Every run of ``MIN_SECRET_PART`` or more characters that also occurs inside a secret, as ``[secret]``."""
    if not secrets or len(text) < MIN_SECRET_PART:
        return text
    grams = {secret[i : i + MIN_SECRET_PART] for secret in secrets for i in range(len(secret) - MIN_SECRET_PART + 1)}
    out, start, i = [], 0, 0
    while i <= len(text) - MIN_SECRET_PART:
        if text[i : i + MIN_SECRET_PART] not in grams:
            i += 1
            continue
        end = i + MIN_SECRET_PART
        while end < len(text) and any(text[i : end + 1] in secret for secret in secrets):
            end += 1
        out += [text[start:i], SECRET_PLACEHOLDER]
        start = i = end
    return "".join(out) + text[start:]


def _secret_texts(value: Any) -> list[str]:
    """The texts a secret could show up as: itself, and for JSON objects (Pulumi's form) every string and number
    in it."""
    if isinstance(value, str):
        texts = [value]
        if value[:1] in "{[":
            try:
                texts += _secret_texts(strict_loads(value))
            except JsonRefused:  # fail closed: still hide every quoted string inside it
                texts += [text for text in (_json_string(match) for match in _JSON_STRING.findall(value)) if text]
        return [text for text in texts if text]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _secret_texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _secret_texts(item)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [str(value)] if len(str(value)) >= 4 else []  # short numbers are counts and indexes, not secrets
    return []


def _is_json_object(text: str) -> bool:
    if text[:1] not in "{[":
        return False
    try:
        return isinstance(strict_loads(text), (dict, list))
    except JsonRefused:
        return False


_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _json_string(body: str) -> str:
    try:
        return str(strict_loads(f'"{body}"'))
    except JsonRefused:
        return body


def _spellings(text: str) -> set[str]:
    """``text`` as it may appear in a message: raw, inside repr() quotes, JSON-escaped, terminal-escaped."""
    return {text, repr(text)[1:-1], json.dumps(text)[1:-1], terminal_safe(text)} - {""}


def field_path(*parts: str | int) -> str:
    """``("gpuPools", 0, "mig")`` -> ``gpupools:gpuPools[0].mig``: how the user finds the key in YAML."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return f"{NAMESPACE}:{text}"
