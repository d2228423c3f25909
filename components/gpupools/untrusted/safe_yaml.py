"""YAML text to plain JSON-like values, with hard limits checked on the event stream as it is parsed.

``yaml.safe_load`` builds the whole object graph before anyone can look at it: an alias bomb expands
to gigabytes, 800 nested brackets overflow the recursion limit, and duplicate keys silently keep the
last value. Here libyaml's parser (``CSafeLoader`` when PyYAML has it) yields events, and each event
is checked before it becomes a Python object: depth, node count after alias expansion (counted per
anchor, so a bomb is refused after a few hundred events, not after expanding it), recursive or
undefined aliases, duplicate and non-string keys, and tags outside the JSON types. Values match what
Pulumi's YAML reader (go-yaml v3) gives a program: timestamp-looking plain scalars stay text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..errors import GpupoolsError
from .limits import MAX_DEPTH, MAX_NODES

__all__ = ["MAX_DEPTH", "MAX_NODES", "YamlIssue", "YamlRefused", "load_yaml"]

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CORE = "tag:yaml.org,2002:"
_CONSTRUCTIBLE = {f"{_CORE}{name}" for name in ("str", "int", "float", "bool", "null")}
_COLLECTION_TAGS = {None, "!", f"{_CORE}map", f"{_CORE}seq"}
_MERGE = object()  # the ``<<`` merge key


@dataclass(frozen=True)
class YamlIssue:
    """One problem in the document: where (keys and indexes from the root), at which line, and what."""

    path: tuple[str | int, ...]
    line: int
    message: str


class YamlRefused(GpupoolsError, ValueError):
    """The document breaks a limit or a rule; ``issues`` lists every problem found before parsing stopped."""

    def __init__(self, issues: list[YamlIssue]):
        self.issues = issues
        super().__init__("; ".join(issue.message for issue in issues))


class _LimitHit(GpupoolsError):
    def __init__(self, issue: YamlIssue):
        self.issue = issue


@dataclass
class _Open:
    """A mapping or sequence whose end event has not come yet."""

    container: dict[str, Any] | list[Any]
    path: tuple[str | int, ...]
    anchor: str | None
    line: int
    nodes: int = 1
    height: int = 1
    key: Any = None  # the pending key of a mapping, until its value arrives
    key_line: int = 0
    has_key: bool = False
    key_lines: dict[str, int] = field(default_factory=dict)
    merges: list[Any] = field(default_factory=list)


def load_yaml(text: str) -> Any:
    """The single document in ``text`` as dicts, lists, str, int, float, bool and None (None when empty)."""
    builder = _Builder()
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            builder.feed(event)
    except _LimitHit as hit:
        raise YamlRefused([*builder.issues, hit.issue]) from None
    except yaml.MarkedYAMLError as error:
        raise YamlRefused([*builder.issues, _syntax_issue(error)]) from None
    except yaml.YAMLError as error:
        raise YamlRefused([YamlIssue((), 0, f"is not valid YAML: {str(error).splitlines()[0]}")]) from None
    if builder.issues:
        raise YamlRefused(builder.issues)
    return builder.result


def _syntax_issue(error: yaml.MarkedYAMLError) -> YamlIssue:
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark else 0
    where = f" (line {line}, column {mark.column + 1})" if mark else ""
    what = " ".join(part for part in (error.context, error.problem) if part)
    return YamlIssue((), line, f"is not valid YAML: {what}{where}")


class _Builder:
    """Turns parser events into values, refusing what Pulumi would refuse or what would cost too much."""

    def __init__(self) -> None:
        self.open: list[_Open] = []
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # value, nodes, height
        self.nodes = 0
        self.documents = 0
        self.issues: list[YamlIssue] = []
        self.result: Any = None
        self._resolver = yaml.resolver.Resolver()
        self._constructor = yaml.constructor.SafeConstructor()

    def feed(self, event: yaml.Event) -> None:
        line = event.start_mark.line + 1 if event.start_mark else 0
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise _LimitHit(
                    YamlIssue((), line, f"holds a second YAML document at line {line}; a stack file is one document")
                )
        elif isinstance(event, yaml.ScalarEvent):
            self._add(self._scalar(event, line), 1, 0, event.anchor, line, cost=1)
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self._start(event, line)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            done = self.open.pop()
            if isinstance(done.container, dict):
                self._merge(done)
            self._add(done.container, done.nodes, done.height, done.anchor, done.line, cost=1)
        elif isinstance(event, yaml.AliasEvent):
            self._alias(event.anchor, line)

    def _path(self) -> tuple[str | int, ...]:
        if not self.open:
            return ()
        top = self.open[-1]
        if isinstance(top.container, list):
            return (*top.path, len(top.container))
        return (*top.path, _shown_key(top.key)) if top.has_key else top.path

    def _start(self, event: yaml.CollectionStartEvent, line: int) -> None:
        if len(self.open) >= MAX_DEPTH:
            raise _LimitHit(
                YamlIssue(
                    self._path(), line, f"nests deeper than {MAX_DEPTH} levels at line {line}; the limit is {MAX_DEPTH}"
                )
            )
        if event.tag not in _COLLECTION_TAGS:
            self.issues.append(
                YamlIssue(
                    self._path(),
                    line,
                    f"has the YAML tag {event.tag!r} at line {line}; only plain mappings and lists are allowed",
                )
            )
        is_mapping = isinstance(event, yaml.MappingStartEvent)
        self.open.append(_Open({} if is_mapping else [], self._path(), event.anchor, line))

    def _alias(self, anchor: str, line: int) -> None:
        if any(frame.anchor == anchor for frame in self.open):
            raise _LimitHit(
                YamlIssue(
                    self._path(),
                    line,
                    f"alias *{anchor} at line {line} refers to a node that contains it (a recursive alias)",
                )
            )
        if anchor not in self.anchors:
            raise _LimitHit(
                YamlIssue(self._path(), line, f"alias *{anchor} at line {line} has no anchor &{anchor} before it")
            )
        value, nodes, height = self.anchors[anchor]
        if len(self.open) + height > MAX_DEPTH:
            raise _LimitHit(
                YamlIssue(
                    self._path(),
                    line,
                    f"alias *{anchor} at line {line} nests deeper than {MAX_DEPTH} levels; the limit is {MAX_DEPTH}",
                )
            )
        self._add(value, nodes, height, None, line, cost=nodes)

    def _add(self, value: Any, nodes: int, height: int, anchor: str | None, line: int, cost: int) -> None:
        """Places a finished node in its parent; ``cost`` is what it adds to the document (an alias: all it repeats)."""
        self.nodes += cost
        if self.nodes > MAX_NODES:
            raise _LimitHit(
                YamlIssue(
                    self._path(),
                    line,
                    f"expands to more than {MAX_NODES} values at line {line} "
                    "(aliases counted as what they repeat); the limit is "
                    f"{MAX_NODES}",
                )
            )
        if anchor is not None:
            self.anchors[anchor] = (value, nodes, height)
        if not self.open:
            self.result = value
            return
        top = self.open[-1]
        top.nodes += nodes
        top.height = max(top.height, height + 1)
        if isinstance(top.container, list):
            top.container.append(value)
        elif not top.has_key:
            top.key, top.key_line, top.has_key = value, line, True
        else:
            self._set(top, value, line)

    def _set(self, top: _Open, value: Any, line: int) -> None:
        key, key_line = top.key, top.key_line
        top.has_key = False
        assert isinstance(top.container, dict)
        if key is _MERGE:
            top.merges.append((value, line))
        elif not isinstance(key, str):
            self.issues.append(
                YamlIssue(
                    top.path,
                    key_line,
                    f"has the key {_shown_key(key)} at line {key_line}, which is not a string; quote it",
                )
            )
        elif key in top.key_lines:
            self.issues.append(
                YamlIssue(
                    (*top.path, key),
                    key_line,
                    f"is defined twice, at line {top.key_lines[key]} and line {key_line}; keep one",
                )
            )
        else:
            top.key_lines[key] = key_line
            top.container[key] = value

    def _merge(self, done: _Open) -> None:
        """``<<: *defaults`` adds the keys the mapping does not set itself, as YAML 1.1 and go-yaml do."""
        for value, line in done.merges:
            sources = value if isinstance(value, list) else [value]
            if not all(isinstance(source, dict) for source in sources):
                self.issues.append(
                    YamlIssue(done.path, line, f"merges (<<) something that is not a mapping at line {line}")
                )
                continue
            for source in sources:
                assert isinstance(done.container, dict)
                for key, item in source.items():
                    done.container.setdefault(key, item)

    def _scalar(self, event: yaml.ScalarEvent, line: int) -> Any:
        tag = event.tag
        implicit = tag in (None, "!")
        if implicit:
            tag = self._resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == f"{_CORE}merge":
            is_key = bool(self.open) and isinstance(self.open[-1].container, dict) and not self.open[-1].has_key
            return _MERGE if is_key else event.value
        if implicit and tag in (f"{_CORE}timestamp", f"{_CORE}value"):
            return event.value  # go-yaml hands timestamps to an untyped value as their text
        if tag not in _CONSTRUCTIBLE:
            self.issues.append(
                YamlIssue(
                    self._path(),
                    line,
                    f"has the YAML tag {tag!r} at line {line}; only strings, numbers, booleans and null are allowed",
                )
            )
            return None
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        try:
            value = self._constructor.construct_object(node)
        except (ValueError, yaml.constructor.ConstructorError):
            self.issues.append(
                YamlIssue(self._path(), line, f"is not a valid {tag.removeprefix(_CORE)} at line {line}")
            )
            return None
        if isinstance(value, float) and not math.isfinite(value):
            self.issues.append(
                YamlIssue(
                    self._path(),
                    line,
                    f"is {event.value} at line {line}; JSON has no infinity or NaN, quote it if it is text",
                )
            )
            return None
        return value


def _shown_key(key: Any) -> str:
    """A key as it goes into a path: strings as they are, anything else as YAML would print it."""
    if isinstance(key, str):
        return key
    if key is _MERGE:
        return "<<"
    if isinstance(key, (dict, list)):
        return f"<{type(key).__name__}>"
    return "null" if key is None else (str(key).lower() if isinstance(key, bool) else str(key))
