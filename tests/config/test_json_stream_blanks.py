"""Runs of blanks in a streamed document (issue 25's gzip bomb of spaces): skipped whole, however long and wherever
pieces end, and only JSON's four blanks are skipped: another Unicode space is refused as strict_loads refuses it."""

from __future__ import annotations

import pytest

from gpupools.untrusted.json_stream import JsonStream, _after_blanks
from gpupools.untrusted.strict_json import JsonRefused


@pytest.mark.parametrize(
    ("text", "end"),
    [
        (" \t\n\rx", 4),
        ("x", 0),
        ("   ", 3),
        (" \x0b x", 1),
        (" \u00a0", 1),
        (" \u2028", 1),
        (" " * 200_000 + "\x85", 200_000),
    ],
)
def test_only_jsons_four_blanks_are_skipped(text: str, end: int) -> None:
    assert _after_blanks(text, 0) == end


def test_megabytes_of_blanks_around_a_document_are_read_in_any_pieces() -> None:
    data = b" \n" * (3 << 20) + b'{"a": 1}' + b"\r\t" * (2 << 20)
    for piece in (65536, 1 << 20, 999_983):
        stream, kept = JsonStream(lambda path: "keep"), []
        for start in range(0, len(data), piece):
            kept += stream.feed(data[start : start + piece])
        assert kept + stream.close() == [(("a",), 1)]


def test_a_non_json_space_after_blanks_is_refused() -> None:
    stream = JsonStream(lambda path: "keep")
    with pytest.raises(JsonRefused):
        stream.feed(b" " * 100_000 + "\u00a0{}".encode())
        stream.close()
