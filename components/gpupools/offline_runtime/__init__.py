"""The offline runtime: a Pulumi program run under recording mocks, with no CLI, plugins or cloud.

``gpupools plan`` runs stack programs with it, and ``gpupools.testing`` offers it to users' own tests. It is the
only package that drives the Pulumi runtime by hand; the private SDK parts it needs are reached through
``gpupools.pulumi_internals``. Importing it has no side effects on the Pulumi runtime: mocks are installed per
run, on a thread of their own, by ``run_program``.
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
