"""What a program logs to the engine: warnings and errors collected; the SDK's debug lines dropped before a record.

The SDK logs several debug lines for each resource it registers; building a ``LogRecord`` for each, only for the
handler to drop it, was 2% of a plan's time per pool.
"""

from __future__ import annotations

import logging
from typing import Any

import pulumi
import pytest
from pulumi import log as pulumi_log
from pulumi.runtime.mocks import MockEngine
from pulumi.runtime.proto import engine_pb2

from gpupools.testing import run_program


def test_only_warnings_and_errors_become_records(monkeypatch: pytest.MonkeyPatch) -> None:
    records: list[str] = []
    original = logging.LogRecord.__init__

    def recording(self: logging.LogRecord, name: str, level: int, *args, **kwargs) -> None:
        records.append(logging.getLevelName(level))
        original(self, name, level, *args, **kwargs)

    monkeypatch.setattr(logging.LogRecord, "__init__", recording)

    def program() -> None:
        for index in range(5):
            pulumi.CustomResource("test:index:Thing", f"t{index}", {"n": index})
        pulumi.log.debug("debug line")
        pulumi.log.info("info line")
        pulumi.log.warn("a warning")
        pulumi.log.error("an error")

    run = run_program(program, project="p", stack="s", config={})

    assert run.warnings == ["a warning"] and run.errors == ["an error"]
    assert sorted(records) == ["ERROR", "WARNING"]


def test_debug_lines_do_not_reach_the_engine_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    severities: list[int] = []
    log = MockEngine.Log

    def recording(self: MockEngine, request: Any) -> None:
        severities.append(request.severity)
        log(self, request)

    monkeypatch.setattr(MockEngine, "Log", recording)

    def program() -> None:
        pulumi.CustomResource("test:index:Thing", "t", {"n": 1})  # the SDK's own debug lines
        pulumi.log.debug("debug line")
        pulumi.log.warn("a warning")

    run_program(program, project="p", stack="s", config={})

    assert severities == [engine_pb2.WARNING]


def test_outside_an_offline_run_debug_lines_reach_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    run_program(lambda: None, project="p", stack="s", config={})  # the SDK's function is wrapped by now
    sent: list[tuple[str, Any]] = []

    def engine_log(engine: Any, severity: Any, message: str, *rest: Any) -> None:
        sent.append((message, severity))

    monkeypatch.setattr(pulumi_log, "_log", engine_log)
    monkeypatch.setattr(pulumi_log, "get_engine", lambda: object())

    pulumi.log.debug("debug line")

    assert sent == [("debug line", engine_pb2.DEBUG)]
