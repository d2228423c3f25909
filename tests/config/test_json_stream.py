"""The kit's piece-by-piece JSON reader: the same strictness as strict_loads, whatever the pieces' boundaries, and
nothing of a truncated or trailing document used."""

from __future__ import annotations

import json

import pytest

from gpupools.untrusted.json_stream import JsonStream
from gpupools.untrusted.strict_json import JsonRefused, JsonTooLarge

DOCUMENT = {
    "version": 7,
    "products": {"a": {"x": [1, 2.5, "é"]}, "b": {"x": None}},
    "terms": {"OnDemand": {"a": {"p": "1.5"}}, "Reserved": {"a": {"p": "9"}}},
}


def _choose(path: tuple[str, ...]):
    if path in (("products",), ("terms",), ("terms", "OnDemand"), ("terms", "Reserved")):
        return "descend"
    if path[0] == "products" or path[:2] == ("terms", "OnDemand"):
        return "keep"
    return "skip"


def _read(data: bytes, piece: int) -> list:
    stream, kept = JsonStream(_choose), []
    for start in range(0, len(data), piece):
        kept += stream.feed(data[start : start + piece])
    return kept + stream.close()


@pytest.mark.parametrize("piece", [1, 2, 3, 7, 64, 1 << 20])
def test_any_piece_boundary_gives_the_same_entries(piece: int) -> None:
    data = json.dumps(DOCUMENT, indent=1).encode()
    assert _read(data, piece) == [
        (("products", "a"), {"x": [1, 2.5, "é"]}),
        (("products", "b"), {"x": None}),
        (("terms", "OnDemand", "a"), {"p": "1.5"}),
    ]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b'{"products": {"a": {"x": 1}', "ends before the document is complete"),
        (b'{"products": {}} {"more": 1}', "has more after the document's end"),
        (b'{"products": {"a": {"x": NaN}}}', "NaN is not a JSON number"),
        (b'{"products": {"a": {"x": 1e999}}}', "outside the range of a double"),
        (b'{"products": {"a": {"x": ' + b"9" * 5000 + b"}}}", "digits"),
        (b'{"products": []}', "expected '{'"),
        (b'{"products" {}}', "expected ':'"),
        (b'{"products": {"a": ' + b"[" * 100 + b"]" * 100 + b"}}", "nests deeper"),
        (b'{"products": {"a": "\xff"}}', "not UTF-8"),
    ],
)
def test_a_broken_document_is_refused(data: bytes, says: str) -> None:
    with pytest.raises(JsonRefused) as error:
        _read(data, 5)
    assert says in str(error.value)


def test_one_value_longer_than_the_bound_is_refused_without_waiting_for_its_end() -> None:
    stream = JsonStream(_choose, max_value_chars=1000)
    stream.feed(b'{"products": {"a": "')
    with pytest.raises(JsonTooLarge, match="longer than 1000 characters"):
        for _ in range(100):
            stream.feed(b"x" * 100)
