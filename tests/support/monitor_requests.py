"""The ``RegisterResource`` requests an offline run sends to the mock monitor, as the monitor receives them."""

from __future__ import annotations

from typing import Any

import pytest

from gpupools.offline_runtime.mocks import SafeMockMonitor


def recorded_requests(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """A list that fills with each request ``SafeMockMonitor.RegisterResource`` gets, for this test."""
    seen: list[Any] = []
    register = SafeMockMonitor.RegisterResource

    def recording(self: SafeMockMonitor, request: Any) -> Any:
        seen.append(request)
        return register(self, request)

    monkeypatch.setattr(SafeMockMonitor, "RegisterResource", recording)
    return seen
