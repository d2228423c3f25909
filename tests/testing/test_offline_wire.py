"""A mock's answer reaches the SDK as the same ``Struct`` whichever way ``to_wire`` builds it.

Plain JSON answers (what ``RecordingMocks`` returns) are built without an event loop; the SDK's
``serialize_properties`` is the reference they must match byte for byte, and stays the way for anything else.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi.runtime import rpc
from pulumi.runtime.sync_await import _sync_await

from gpupools.pulumi_internals import to_wire

# The wire form's documented markers (pulumi/sdk proto docs): a secret wraps its value under this signature key.
SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"

PLAIN_ANSWERS: list[dict[str, Any]] = [
    {},
    {"name": "gpu1", "count": 2, "spotMaxPrice": -1.0, "enableAutoScaling": False},
    {"dropped": None, "kept": "x"},
    {"nodeLabels": {}, "nodeTaints": [], "tags": {"empty": "", "none": None}},
    {"nested": {"list": [1, "two", None, True, {"deep": [[]]}]}},
    {"password": {SIG_KEY: SECRET_SIG, "value": "hunter2"}},
    {"fqdn": rpc.UNKNOWN, "ünïcode": "☃", "big": 2**53, "small": 1e-300},
]


def _reference(state: dict[str, Any]) -> bytes:
    return _sync_await(rpc.serialize_properties(state, {})).SerializeToString(deterministic=True)


@pytest.mark.parametrize("state", PLAIN_ANSWERS, ids=range(len(PLAIN_ANSWERS)))
def test_a_plain_answer_is_the_bytes_the_sdk_serialises(state: dict[str, Any]) -> None:
    assert to_wire(state).SerializeToString(deterministic=True) == _reference(state)


def test_a_top_level_none_is_left_out_and_a_nested_one_kept_as_null() -> None:
    wire = to_wire({"gone": None, "map": {"null": None}})

    assert "gone" not in wire.fields
    assert wire.fields["map"].struct_value.fields["null"].WhichOneof("kind") == "null_value"


def test_an_answer_holding_an_asset_takes_the_sdks_way() -> None:
    # Struct.update would refuse the asset ("Unexpected type"); the SDK writes its wire form.
    wire = to_wire({"code": pulumi.StringAsset("print(1)"), "plain": "x"})

    asset = wire.fields["code"].struct_value.fields
    assert asset[SIG_KEY].string_value == ASSET_SIG
    assert asset["text"].string_value == "print(1)"
    assert wire.fields["plain"].string_value == "x"
