"""A small, strict reader of the TypeScript the examples use: imports, ``new pkg.Component("name", {...})`` with
object literals, and ``export const x = resource.output``. Anything else is a ``TsSyntaxError`` naming its line, so
an example that grows past what the checks understand fails loudly instead of being checked in part.

No TypeScript toolchain is needed (none ships with the project); the shapes read here are the ones a Pulumi program
passes to a component, and values are JSON-like literals or references to another resource's output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>-?\d+(?:\.\d+)?)
  | (?P<name>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<punct>[{}\[\]().,:;=*])
    """,
    re.VERBOSE | re.DOTALL,
)


class TsSyntaxError(ValueError):
    """The example uses TypeScript this reader does not take."""


@dataclass(frozen=True)
class Ref:
    """A reference to an output of another resource of the program: ``platform.clusterName``."""

    resource: str
    output: str


@dataclass
class New:
    """``const <variable> = new <module>.<component>(<name>, <args>)``."""

    variable: str
    module: str
    component: str
    name: str
    args: dict[str, Any]
    line: int


@dataclass
class Program:
    imports: dict[str, str] = field(default_factory=dict)  # alias -> module ("@pulumi/gpupools")
    resources: list[New] = field(default_factory=list)
    exports: dict[str, Ref] = field(default_factory=dict)


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    line: int


def _tokens(text: str) -> list[_Token]:
    tokens, position, line = [], 0, 1
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None:
            raise TsSyntaxError(f"line {line}: unexpected {text[position]!r}")
        kind = match.lastgroup or ""
        if kind not in ("space", "comment"):
            tokens.append(_Token(kind, match.group(), line))
        line += match.group().count("\n")
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self, offset: int = 0) -> _Token | None:
        index = self.at + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, kind: str, text: str | None = None) -> _Token:
        token = self.peek()
        if token is None or token.kind != kind or (text is not None and token.text != text):
            where = f"line {token.line}" if token else "the end"
            found = repr(token.text) if token else "nothing"
            raise TsSyntaxError(f"{where}: expected {text or kind}, found {found}")
        self.at += 1
        return token

    def at_text(self, text: str) -> bool:
        token = self.peek()
        return token is not None and token.text == text

    def program(self) -> Program:
        program = Program()
        while self.peek() is not None:
            token = self.peek()
            assert token is not None
            if token.text == "import":
                alias, module = self.import_statement()
                program.imports[alias] = module
            elif token.text == "const":
                program.resources.append(self.new_statement())
            elif token.text == "export":
                self.take("name", "export")
                self.take("name", "const")
                name = self.take("name").text
                self.take("punct", "=")
                value = self.value()
                if not isinstance(value, Ref):
                    raise TsSyntaxError(f"line {token.line}: export {name} is not a resource's output")
                self.take("punct", ";")
                program.exports[name] = value
            else:
                raise TsSyntaxError(f"line {token.line}: unexpected {token.text!r}")
        return program

    def import_statement(self) -> tuple[str, str]:
        self.take("name", "import")
        self.take("punct", "*")
        self.take("name", "as")
        alias = self.take("name").text
        self.take("name", "from")
        module = _unquote(self.take("string").text)
        self.take("punct", ";")
        return alias, module

    def new_statement(self) -> New:
        line = self.take("name", "const").line
        variable = self.take("name").text
        self.take("punct", "=")
        self.take("name", "new")
        module = self.take("name").text
        self.take("punct", ".")
        component = self.take("name").text
        self.take("punct", "(")
        name = _unquote(self.take("string").text)
        self.take("punct", ",")
        args = self.value()
        if not isinstance(args, dict):
            raise TsSyntaxError(f"line {line}: the args of {variable} are not an object literal")
        if self.at_text(","):
            raise TsSyntaxError(f"line {line}: resource options are not read; leave them out of the example")
        self.take("punct", ")")
        self.take("punct", ";")
        return New(variable, module, component, name, args, line)

    def value(self) -> Any:
        token = self.peek()
        if token is None:
            raise TsSyntaxError("the program ends inside a value")
        if token.text == "{":
            return self.object_literal()
        if token.text == "[":
            return self.array_literal()
        self.at += 1
        if token.kind == "string":
            return _unquote(token.text)
        if token.kind == "number":
            return float(token.text) if "." in token.text else int(token.text)
        if token.kind == "name" and token.text in ("true", "false"):
            return token.text == "true"
        if token.kind == "name" and self.at_text("."):
            self.take("punct", ".")
            output = self.take("name").text
            if self.at_text(".") or self.at_text("("):
                raise TsSyntaxError(f"line {token.line}: only resource.output references are read")
            return Ref(token.text, output)
        raise TsSyntaxError(f"line {token.line}: {token.text!r} is not a literal or a resource's output")

    def object_literal(self) -> dict[str, Any]:
        self.take("punct", "{")
        result: dict[str, Any] = {}
        while not self.at_text("}"):
            key_token = self.peek()
            if key_token is None or key_token.kind not in ("name", "string"):
                raise TsSyntaxError(f"line {key_token.line if key_token else '?'}: expected a key")
            self.at += 1
            key = _unquote(key_token.text) if key_token.kind == "string" else key_token.text
            if key in result:
                raise TsSyntaxError(f"line {key_token.line}: {key!r} is given twice")
            self.take("punct", ":")
            result[key] = self.value()
            if not self.at_text("}"):
                self.take("punct", ",")
        self.take("punct", "}")
        return result

    def array_literal(self) -> list[Any]:
        self.take("punct", "[")
        items: list[Any] = []
        while not self.at_text("]"):
            items.append(self.value())
            if not self.at_text("]"):
                self.take("punct", ",")
        self.take("punct", "]")
        return items


def _unquote(text: str) -> str:
    body = text[1:-1]
    if "\\" in body:
        raise TsSyntaxError(f"escapes in {text} are not read")
    return body


def read_program(text: str) -> Program:
    """The imports, component instances and exports of a TypeScript program of the examples' shape."""
    return _Parser(text).program()
