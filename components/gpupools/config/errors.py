"""One error type for every bad input, carrying one line per problem so users fix them all in one pass."""

from __future__ import annotations

from dataclasses import dataclass

NAMESPACE = "gpupools"


@dataclass(frozen=True, order=True)
class Problem:
    """What is wrong with one config field: ``field`` is the full key path, e.g. ``gpupools:gpuPools[0].mig``."""

    field: str
    message: str

    def __str__(self) -> str:
        # One line per problem, whatever the user put in a key.
        return f"{self.field}: {self.message}".replace("\n", "\\n")


class ConfigError(ValueError):
    """Raised before any resource is registered; ``str()`` is one line per problem."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(set(problems), key=lambda p: (p.field, p.message))
        super().__init__("\n".join(str(p) for p in self.problems))


def field_path(*parts: str | int) -> str:
    """``("gpuPools", 0, "mig")`` -> ``gpupools:gpuPools[0].mig``: how the user finds the key in YAML."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return f"{NAMESPACE}:{text}"
