"""An AKS pool's agent pool leaves its unset properties out of its Python object (``azure/unset_properties.py``):
the RegisterResourceRequest the engine receives is the same bytes with and without that, and the outputs the
component reads still resolve."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpupools.azure import AksGpuPool, gpu_pool
from gpupools.offline_runtime import mocks as offline_mocks
from support.component_inputs import AKS_MIG1G_POOL
from support.resources import run_mocked

AGENT_POOL = "azure-native:containerservice:AgentPool"
ARGS = {
    **AKS_MIG1G_POOL,
    "scale_set_priority": "Spot",
    "scale_set_eviction_policy": "Delete",
    "spot_max_price": -1.0,
}
_REGISTER = offline_mocks.SafeMockMonitor.RegisterResource


def _requests(monkeypatch: pytest.MonkeyPatch, program: Any) -> tuple[list[bytes], Any]:
    """The agent pool's RegisterResourceRequests as serialised, and the run."""
    sent: list[bytes] = []

    def recording(self: Any, request: Any) -> Any:
        if request.type == AGENT_POOL:
            sent.append(request.SerializeToString(deterministic=True))
        return _REGISTER(self, request)

    monkeypatch.setattr(offline_mocks.SafeMockMonitor, "RegisterResource", recording)
    return sent, run_mocked(program)


def _program(seen: dict[str, Any]) -> Any:
    def capture(args: pulumi.ResourceTransformationArgs) -> None:
        if args.type_ == AGENT_POOL:  # a parent's transformation runs after the child's own
            seen["props"] = dict(args.props)

    def program() -> None:
        pool = AksGpuPool("gpu", ARGS, pulumi.ResourceOptions(transformations=[capture]))
        pulumi.export("poolName", pool.pool_name)
        pulumi.export("vmSize", pool.vm_size)
        pulumi.export("gpuInstanceProfile", pool.gpu_instance_profile)

    return program


def test_the_engine_receives_the_same_request_with_and_without(monkeypatch: pytest.MonkeyPatch) -> None:
    trimmed, _ = _requests(monkeypatch, _program({}))
    monkeypatch.setattr(gpu_pool, "_WITHOUT_UNSET", lambda args: None)
    whole, _ = _requests(monkeypatch, _program({}))

    assert len(trimmed) == 1 and trimmed == whole


def test_unset_properties_are_left_out_and_the_read_outputs_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}
    _, run = _requests(monkeypatch, _program(seen))

    props = seen["props"]
    assert "provisioning_state" not in props and "power_state" not in props  # outputs left unset
    assert "max_count" not in props  # an input left unset
    assert props["spot_max_price"] == -1.0 and props["vm_size"] == "Standard_ND96asr_v4"  # set: kept
    assert {"name", "vm_size", "gpu_instance_profile"} <= set(props)  # read by the component
    assert run.outputs == {"poolName": "mig1g", "vmSize": "Standard_ND96asr_v4", "gpuInstanceProfile": "MIG1g"}


def test_without_the_trim_the_sdk_would_make_an_output_of_every_property(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr(gpu_pool, "_WITHOUT_UNSET", lambda args: None)
    _requests(monkeypatch, _program(seen))

    assert "provisioning_state" in seen["props"] and seen["props"]["provisioning_state"] is None
