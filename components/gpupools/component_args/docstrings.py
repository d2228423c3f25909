"""``help()`` on a component lists its args and outputs, written from the attribute docstrings the schema reads.

Each key of a component's args TypedDict and each output annotation on the component carries a docstring right
after it; Pulumi's analyzer turns those into the multi-language schema's descriptions. ``documented`` renders
the same docstrings, with each key's type and whether it is required, into the class's and ``__init__``'s
``__doc__`` (when first read), so ``help()``, ``pydoc`` and ``inspect.getdoc`` show what an IDE shows on hover,
from one source. The docstrings are read from the module's file text (``inspect.getsource`` on a class can hit
a recursion error in CPython 3.11's class finder). Pure: imports no Pulumi.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import textwrap
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..untrusted.files import read_text

# The generated sections start with these headings; ``own_doc`` cuts them off again (the schema's description).
ARGS_HEADING = "Args ("
OUTPUTS_HEADING = "Outputs ("
_INDENT = "    "
_WIDTH = 112
_WHOLE_WORDS: dict[str, Any] = {"break_on_hyphens": False, "break_long_words": False}  # names stay whole

T = TypeVar("T", bound=type)


@dataclass(frozen=True)
class Field:
    """One key of an args TypedDict or one output of a component, as its source declares it."""

    name: str
    annotation: str  # the annotation's source text, ``pulumi.`` and ``NotRequired[...]`` taken off
    doc: str
    required: bool
    nested: tuple[type, ...] = ()  # the TypedDicts the annotation names (``list[GpuPoolArgs]``), in order


def schema_name(name: str) -> str:
    """The name other languages use: Pulumi's analyzer camelCases each Python name (``subnet_ids`` -> ``subnetIds``)."""
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


@functools.lru_cache(maxsize=None)
def _module_tree(path: str) -> ast.Module:
    return ast.parse(read_text(Path(path), "module source"))


def _class_node(cls: type) -> ast.ClassDef | None:
    """The ``class`` statement of ``cls`` in its module's file (found by its qualified name)."""
    path = getattr(sys.modules.get(cls.__module__), "__file__", None)
    if not path or not path.endswith(".py"):
        return None
    body: list[ast.stmt] = _module_tree(path).body
    node = None
    for part in cls.__qualname__.split("."):
        node = next((stmt for stmt in body if isinstance(stmt, ast.ClassDef) and stmt.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def _bare(annotation: ast.expr) -> str:
    """The annotation as written, without ``NotRequired[...]`` (said by ``required``) and the ``pulumi.`` prefix."""
    text = ast.unparse(annotation)
    if text.startswith("NotRequired[") and text.endswith("]"):
        text = text[len("NotRequired[") : -1]
    return text.replace("pulumi.", "")


def declared_fields(cls: type) -> list[Field]:
    """The annotated, public attributes ``cls`` declares (base classes first, as the analyzer reads them), each with
    the docstring after it ('' when it has none)."""
    optional = set(getattr(cls, "__optional_keys__", ()))
    fields: dict[str, Field] = {}
    for owner in reversed(cls.__mro__):
        node = _class_node(owner) if not owner.__module__.startswith(("pulumi", "builtins", "typing")) else None
        if node is None:
            continue
        body = node.body
        for statement, after in zip(body, [*body[1:], None]):
            if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
                continue
            name = statement.target.id
            if name.startswith("_"):
                continue
            doc = ""
            if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                doc = str(after.value.value)
            nested = _typed_dicts(statement.annotation, vars(sys.modules[owner.__module__]))
            fields[name] = Field(name, _bare(statement.annotation), " ".join(doc.split()), name not in optional, nested)
    return list(fields.values())


def _typed_dicts(annotation: ast.expr, namespace: dict[str, Any]) -> tuple[type, ...]:
    """The TypedDicts an annotation names, looked up in its module (no evaluation: ``pulumi.Input`` holds forward
    references ``get_type_hints`` cannot resolve)."""
    names = [node.id for node in ast.walk(annotation) if isinstance(node, ast.Name)]
    return tuple(namespace[name] for name in names if typing.is_typeddict(namespace.get(name)))


def _entry(head: str, doc: str, depth: int) -> list[str]:
    indent = _INDENT * (depth + 1)
    lines = [f"{_INDENT * depth}{head}"]
    if doc:
        lines += textwrap.wrap(doc, _WIDTH, initial_indent=indent, subsequent_indent=indent, **_WHOLE_WORDS)
    return lines


def args_lines(args: type, depth: int = 1, seen: frozenset[type] = frozenset()) -> list[str]:
    """Each key of ``args``: ``name (schemaName): type[, optional]`` and its docstring; the keys of a nested TypedDict
    follow its key, indented (once per listing)."""
    lines: list[str] = []
    for field in declared_fields(args):
        optional = "" if field.required else ", optional"
        lines += _entry(f"{_named(field.name)}: {field.annotation}{optional}", field.doc, depth)
        for nested in field.nested:
            if nested not in seen:
                seen = seen | {nested}
                lines += args_lines(nested, depth + 1, seen)
    return lines


def outputs_lines(component: type) -> list[str]:
    """Each output of ``component``: ``attribute (schemaName): type`` and its docstring."""
    return [
        line
        for field in declared_fields(component)
        for line in _entry(f"{_named(field.name)}: {field.annotation}", field.doc, 1)
    ]


def _named(name: str) -> str:
    other = schema_name(name)
    return name if other == name else f"{name} ({other})"


def args_type(component: type) -> type:
    """The TypedDict of ``component.__init__``'s ``args``, as the analyzer finds it."""
    return typing.get_type_hints(component.__init__)["args"]


def sections(component: type, *, outputs: bool = True) -> str:
    """The Args section (every key, nested keys indented) and the Outputs section (or only the outputs' names)."""
    args = args_type(component)
    out = declared_fields(component)
    text = [
        f"{ARGS_HEADING}the keys of ``args``, a dict typed ``{args.__name__}``; other languages use the names in "
        "brackets):",
        *args_lines(args),
        "",
    ]
    if outputs:
        text += [
            f"{OUTPUTS_HEADING}attributes; other languages read the names in brackets):",
            *outputs_lines(component),
        ]
    else:
        names = ", ".join(field.name for field in out)
        text += textwrap.wrap(
            f"{OUTPUTS_HEADING}see the class): {names}.", _WIDTH, subsequent_indent=_INDENT, **_WHOLE_WORDS
        )
    return "\n".join(text)


def own_doc(doc: str) -> str:
    """A docstring without the sections ``documented`` added (the schema has its own per-property descriptions)."""
    cut = doc.find(f"\n\n{ARGS_HEADING}")
    return (doc if cut < 0 else doc[:cut]).strip()


def documented(component: T) -> T:
    """Class decorator: the component's docstring, and that of the ``__init__`` it defines (an inherited one is
    written by the class defining it), get the Args and Outputs sections when first read, not at import: reading
    the source costs tens of milliseconds a plan does not need."""
    component.__doc__ = _ClassDoc(component, own_doc(_own(component)))  # type: ignore[assignment]
    init = component.__dict__.get("__init__")
    if init is not None:
        setattr(component, "__init__", _DocumentedInit(init, component))
    return component


class _ClassDoc:
    """A class's ``__doc__``, built on first read: ``type.__doc__`` calls the ``__get__`` of what the class holds."""

    def __init__(self, component: type, own: str) -> None:
        self.component, self.own, self.text = component, own, ""

    def __get__(self, instance: object, owner: type | None = None) -> str:
        if not self.text:
            self.text = f"{self.own}\n\n{sections(self.component)}"
        return self.text


class _DocumentedInit:
    """A component's ``__init__``: read from the class (``help()``, ``inspect``, the schema analyzer) it is the
    function, its docstring written the first time; on an instance it binds as the function does."""

    def __init__(self, function: Any, component: type) -> None:
        self.function, self.component, self.written = function, component, False

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is not None:
            return self.function.__get__(instance, owner)
        if not self.written:
            self.written = True  # first: the sections read ``component.__init__`` for its args' type
            self.function.__doc__ = f"{own_doc(_own(self.function))}\n\n{sections(self.component, outputs=False)}"
        return self.function


def _own(obj: Any) -> str:
    """``obj``'s own docstring (not a base class's), dedented."""
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else obj.__doc__
    return inspect.cleandoc(doc if isinstance(doc, str) else "")
