"""Offline test helpers for users' own programs: run one under recording mocks, no CLI, plugins or cloud needed.

The public face of the offline runtime ``gpupools plan`` uses (``gpupools.offline_runtime``), so a user's test runs a
program exactly as ``plan`` does (docs/reuse.md, "Checking your own program offline"). These names are the supported
API; the runtime's modules behind them may move.
"""

from ..offline_runtime import (
    MOCK_KUBECONFIG,
    SECRET,
    UNKNOWN,
    ProgramRun,
    RecordedCall,
    RecordedResource,
    RecordingMocks,
    SafeMockMonitor,
    dump_resources,
    run_program,
)

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
