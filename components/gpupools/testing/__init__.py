"""Offline test harness: run a Pulumi program under recording mocks, no CLI, plugins or cloud needed.

Importing this package has no side effects on the Pulumi runtime; mocks are installed per run, on a
thread of their own, by ``run_program``.
"""

from .mocks import (
    MOCK_KUBECONFIG,
    SECRET,
    UNKNOWN,
    RecordedCall,
    RecordedResource,
    RecordingMocks,
    SafeMockMonitor,
)
from .runner import ProgramRun, dump_resources, run_program

__all__ = [
    "MOCK_KUBECONFIG",
    "SECRET",
    "UNKNOWN",
    "ProgramRun",
    "RecordedCall",
    "RecordedResource",
    "RecordingMocks",
    "SafeMockMonitor",
    "dump_resources",
    "run_program",
]
