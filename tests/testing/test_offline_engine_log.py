"""What a program logs to the engine: warnings and errors collected; the SDK's debug lines dropped before a record.

The SDK logs several debug lines for each resource it registers; building a ``LogRecord`` for each, only for the
handler to drop it, was 2% of a plan's time per pool.
"""

from __future__ import annotations

import logging

import pulumi
import pytest

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
