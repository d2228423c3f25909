"""A validated stack: the config as written, its pools resolved, the advice that is not an error, and where
each NVIDIA daemonset lands. Built only by ``gpupools.resolve.load_stack``; every layer above reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..catalog.clock import PlanDate
from ..config.models import StackConfig
from .pools import ResolvedPool

PLAIN_POD = "pod without tolerations"


@dataclass(frozen=True)
class Placement:
    """Whether one daemonset (or the plain pod) schedules on one pool, and whether it should."""

    pool: str
    daemonset: str
    schedules: bool
    expected: bool
    reason: str

    @property
    def ok(self) -> bool:
        return self.schedules == self.expected

    @property
    def problem(self) -> str:
        if self.daemonset == PLAIN_POD:
            return f"pool {self.pool}: a pod without tolerations can be scheduled on its GPU nodes ({self.reason})"
        if self.expected:
            return f"pool {self.pool}: {self.daemonset} does not run on its nodes ({self.reason})"
        return f"pool {self.pool}: {self.daemonset} runs on its nodes but must not ({self.reason})"


@dataclass(frozen=True)
class Stack:
    """A validated stack: the config as written, its pools resolved, and advice that is not an error."""

    config: StackConfig
    pools: list[ResolvedPool]
    warnings: list[str] = field(default_factory=list)
    # Where each NVIDIA daemonset lands on each pool, as the placement check found it (for the plan to show).
    placements: list[Placement] = field(default_factory=list)
    # The date its dated facts were compared with (catalog/clock.py); plan shows it.
    on: PlanDate | None = None

    @property
    def cloud(self) -> str:
        return self.config.cloud

    @property
    def mig_strategy(self) -> str:
        return self.config.gpu_software.mig_strategy
