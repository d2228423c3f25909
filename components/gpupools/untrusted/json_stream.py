"""A JSON document too large to hold (an EC2 offer file is hundreds of MB) read as it arrives, piece by piece.

The reader descends into the objects the caller asks for and hands over, decoded, only the entries it wants; every
other value is decoded alone and dropped. So memory is what the caller keeps plus one entry, never the document.
Each entry is read with the strict rules of ``strict_json`` (no NaN or Infinity, bounded numbers and depth) and
at most ``max_value_chars`` long. A document that ends early is refused, so a truncated download is never half
used.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .strict_json import JsonNotText, JsonRefused, JsonTooLarge, check_size, strict_decoder

Choice = Literal["descend", "keep", "skip"]
Path = tuple[str, ...]
MAX_VALUE_CHARS = 4 << 20  # one entry of an offer file is about 2 KB
_WHITESPACE = " \t\n\r"
_BLANKS = re.compile(r"[ \t\n\r]*")


@dataclass
class _Frame:
    path: Path
    expect: str = "open"  # open, key-or-close, key, colon, value, comma-or-close
    key: str = ""


@dataclass
class JsonStream:
    """``feed`` it the document's bytes as they come; ``choose(path)`` says, for the value at a path of keys,
    whether to descend into it (an object), keep it (returned by ``feed``) or skip it. ``close`` at the end."""

    choose: Callable[[Path], Choice]
    max_value_chars: int = MAX_VALUE_CHARS
    _text: str = ""
    _pos: int = 0
    _stack: list[_Frame] = field(default_factory=lambda: [_Frame(())])
    _done: bool = False
    _decoder: json.JSONDecoder = field(default_factory=strict_decoder)
    _utf8: codecs.IncrementalDecoder = field(default_factory=lambda: codecs.getincrementaldecoder("utf-8")())

    def feed(self, data: bytes, final: bool = False) -> list[tuple[Path, Any]]:
        """The kept entries that ``data`` completes, as (path, value)."""
        try:
            text = self._utf8.decode(data, final)
        except UnicodeDecodeError:
            raise JsonNotText("is not UTF-8 text") from None
        if self._pos > 1 << 20:
            self._text, self._pos = self._text[self._pos :], 0
        self._text += text
        kept: list[tuple[Path, Any]] = []
        while self._step(kept, final):
            pass
        return kept

    def close(self) -> list[tuple[Path, Any]]:
        """The last entries; a ``JsonRefused`` when the document is incomplete or has more after its end."""
        kept = self.feed(b"", final=True)
        if not self._done:
            raise JsonRefused("ends before the document is complete (truncated?)")
        return kept

    def _step(self, kept: list[tuple[Path, Any]], final: bool) -> bool:
        """One token or one value; False when more text is needed."""
        text, pos = self._text, _after_blanks(self._text, self._pos)
        self._pos = pos
        if pos >= len(text):
            return False
        if self._done:
            raise JsonRefused(f"has more after the document's end (at character {pos})")
        frame, char = self._stack[-1], text[pos]
        if frame.expect == "open":
            self._expect(char, "{", frame)
            frame.expect = "key-or-close"
        elif frame.expect in ("key-or-close", "comma-or-close") and char == "}":
            self._pos += 1
            self._stack.pop()
            self._done = not self._stack
        elif frame.expect == "comma-or-close":
            self._expect(char, ",", frame)
            frame.expect = "key"
        elif frame.expect in ("key-or-close", "key"):
            if char != '"':
                raise JsonRefused(f"{_where(frame.path)}: expected a key, found {char!r}")
            key = self._value(final, frame)
            if key is _MORE:
                return False
            frame.key, frame.expect = key, "colon"
        elif frame.expect == "colon":
            self._expect(char, ":", frame)
            frame.expect = "value"
        else:
            return self._entry(frame, kept, final)
        return True

    def _entry(self, frame: _Frame, kept: list[tuple[Path, Any]], final: bool) -> bool:
        path = (*frame.path, frame.key)
        choice = self.choose(path)
        if choice == "descend":
            frame.expect = "comma-or-close"
            self._stack.append(_Frame(path))
            if len(self._stack) > 64:
                raise JsonTooLarge("nests deeper than 64 levels")
            return True
        value = self._value(final, frame)
        if value is _MORE:
            return False
        check_size(value)
        if choice == "keep":
            kept.append((path, value))
        frame.expect = "comma-or-close"
        return True

    def _value(self, final: bool, frame: _Frame) -> Any:
        """The value at the current position, or ``_MORE`` when its end has not arrived yet."""
        try:
            value, end = self._decoder.raw_decode(self._text, self._pos)
        except RecursionError:
            raise JsonTooLarge("nests deeper than the reader allows") from None
        except JsonRefused:
            raise
        except ValueError as error:
            if final:
                raise JsonRefused(f"{_where(frame.path)}: {error}") from None
            value, end = _MORE, len(self._text)
        if end >= len(self._text) and not final:  # a number may go on in the next piece; an object may not
            if len(self._text) - self._pos > self.max_value_chars:
                raise JsonTooLarge(f"{_where(frame.path)}: a value longer than {self.max_value_chars} characters")
            return _MORE
        self._pos = end
        return value

    def _expect(self, char: str, wanted: str, frame: _Frame) -> None:
        if char != wanted:
            raise JsonRefused(f"{_where(frame.path)}: expected {wanted!r}, found {char!r}")
        self._pos += 1


_MORE: Any = object()


def _after_blanks(text: str, pos: int) -> int:
    """The first position from ``pos`` that is not JSON whitespace. A long run is skipped 64 K at a time by
    ``str.lstrip()`` (C speed: 64 MB of blanks pass in a fraction of a second, not half a minute), trusted only
    when every character it skipped is one of JSON's four (it also skips other Unicode spaces)."""
    while pos < len(text) and text[pos] in _WHITESPACE:
        window = text[pos : pos + 65536]
        skipped = len(window) - len(window.lstrip())
        if sum(window.count(blank, 0, skipped) for blank in _WHITESPACE) != skipped:
            blanks = _BLANKS.match(window)  # ``*``: always matches, perhaps nothing
            skipped = blanks.end() if blanks else 0
        pos += skipped
    return pos


def _where(path: Path) -> str:
    return "at the top" if not path else "in " + ".".join(key[:40] for key in path)
