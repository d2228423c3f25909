"""Files, parsers and the network are reached one way: through the kit, ``gpupools/untrusted`` (issue 36).

Every module of the package outside ``untrusted/`` is read with ``ast``; this fails, naming the file and line, on:

- **writing a file**: ``open``/``Path.open``/``os.fdopen`` with a mode holding ``w``, ``a``, ``x`` or ``+``,
  ``write_text``, ``write_bytes``, a path's one-argument ``.replace``/``.rename`` (``str.replace`` takes two),
  ``os.open`` with a write flag, ``os.replace``/``rename``/``remove``/``mkdir``..., ``Path.mkdir``/``touch``/
  ``unlink``/``chmod``..., any ``tempfile`` and ``shutil``'s copies, moves and removals
  (``untrusted.atomic_file`` is the way: ``write_atomically``, ``write_private``);
- **reading a file**: ``open`` (or ``Path.open``) to read, ``read_text``, ``read_bytes``, ``os.open`` read-only,
  ``mmap``, ``fileinput``, ``linecache`` (``untrusted.files`` is the way: ``read_text``, ``read_limited``,
  ``read_packaged``);
- **parsing JSON, YAML or another serialisation**: ``json.load(s)``, ``json.JSONDecoder``, ``yaml``'s loaders,
  ``tomllib``, ``pickle``, ``marshal``, pydantic's ``validate_json`` (``strict_json``, ``safe_yaml``);
- **the network**: an import of an HTTP or socket library (``urllib.request``, ``http.client``, ``socket``,
  ``requests``, ...), ``urlopen``, ``create_connection``, ``wrap_socket``, ``asyncio.open_connection``
  (``http_client.http_get``).

Its allowlist is empty, as the layer test's is, and may only stay so: a module that needs a new way in adds it to
the kit, once. A name is matched by how it is spelled, so an alias (``import json as j``) is followed too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "components" / "gpupools"
KIT = PACKAGE / "untrusted"
KIT_MODULE = "gpupools.untrusted"
ALLOWLIST: set[tuple[str, str]] = set()  # (module file, offence) that break the rule today; may only shrink

NETWORK_MODULES = ("urllib.request", "urllib3", "http.client", "http.server", "requests", "httpx", "aiohttp")
NETWORK_MODULES += ("socket", "socketserver", "ftplib", "smtplib", "poplib", "imaplib", "telnetlib", "xmlrpc")
NETWORK_MODULES += ("websocket", "websockets", "pycurl", "grpc")
NETWORK_CALLS = {"urlopen", "create_connection", "wrap_socket", "open_connection", "create_server"}
FILE_MODULES = ("tempfile", "mmap", "fileinput", "linecache", "shelve", "dbm", "sqlite3")
PARSERS = {
    "json": {"load", "loads", "JSONDecoder", "decoder", "raw_decode"},
    "tomllib": {"load", "loads"},
    "tomli": {"load", "loads"},
    "pickle": {"load", "loads", "Unpickler"},
    "marshal": {"load", "loads"},
}
PARSER_METHODS = {"model_validate_json", "validate_json"}
OS_WRITES = {"replace", "rename", "renames", "remove", "unlink", "rmdir", "removedirs", "mkdir", "makedirs"}
OS_WRITES |= {"symlink", "link", "chmod", "chown", "lchown", "truncate", "mkfifo", "mknod", "fdopen", "utime"}
OS_WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC", "O_EXCL", "O_TMPFILE"}
PATH_WRITES = {"write_text", "write_bytes", "touch", "mkdir", "unlink", "rmdir", "symlink_to", "hardlink_to"}
PATH_WRITES |= {"chmod", "lchmod"}
PATH_READS = {"read_text", "read_bytes", "open_text", "open_binary", "read_binary"}
SHUTIL_FILES = {"copy", "copy2", "copyfile", "copytree", "copymode", "copystat", "move", "rmtree", "chown"}
SHUTIL_FILES |= {"make_archive", "unpack_archive"}
OPENERS = {"open", "fdopen"}


def _dotted(node: ast.expr) -> str:
    """``a.b.c`` for a chain of names, else ''."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _mode(call: ast.Call, position: int) -> str | None:
    """The literal mode an ``open`` call gives (positional ``position`` or ``mode=``); '' when not a literal."""
    given = call.args[position] if len(call.args) > position else None
    given = next((k.value for k in call.keywords if k.arg == "mode"), given)
    if given is None:
        return None
    return given.value if isinstance(given, ast.Constant) and isinstance(given.value, str) else ""


def _opens_to_write(mode: str | None) -> bool:
    return mode is not None and (mode == "" or any(flag in mode for flag in "wax+"))


class _Scan(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []
        self.aliases: dict[str, str] = {}  # local name -> module or module.name it stands for

    def add(self, node: ast.AST, what: str) -> None:
        self.found.append((getattr(node, "lineno", 0), what))

    def real(self, dotted: str) -> str:
        head, _, rest = dotted.partition(".")
        base = self.aliases.get(head, head)
        return f"{base}.{rest}" if rest else base

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            local = alias.asname or alias.name.split(".")[0]
            self.aliases[local] = alias.name if alias.asname else local
            self._module(node, alias.name)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:  # ours: only the kit's modules matter, so that ``files.read_text(...)`` is the kit's
            for alias in node.names:
                module = node.module or ""
                if module.split(".")[-1] == "untrusted" or module.startswith("untrusted") or alias.name == "untrusted":
                    self.aliases[alias.asname or alias.name] = KIT_MODULE
            return
        if not node.module:
            return
        self._module(node, node.module)
        for alias in node.names:
            full = f"{node.module}.{alias.name}"
            self.aliases[alias.asname or alias.name] = full
            self._module(node, full)
            self._name(node, full)

    def _module(self, node: ast.AST, name: str) -> None:
        if any(name == module or name.startswith(f"{module}.") for module in NETWORK_MODULES):
            self.add(node, f"network: imports {name}")
        if any(name == module or name.startswith(f"{module}.") for module in FILE_MODULES):
            self.add(node, f"file: imports {name}")

    def _name(self, node: ast.AST, full: str) -> None:
        """A forbidden function named on its own (``from os import replace``, ``json.loads``)."""
        module, _, name = full.rpartition(".")
        if module in PARSERS and name in PARSERS[module]:
            self.add(node, f"parse: {full}")
        elif module == "yaml" and ("load" in name.lower() or name in {"compose", "compose_all", "parse", "scan"}):
            self.add(node, f"parse: {full}")
        elif module == "os" and name in OS_WRITES:
            self.add(node, f"write: {full}")
        elif module == "shutil" and name in SHUTIL_FILES:
            self.add(node, f"write: {full}")
        elif module in {"io", "codecs"} and name == "open":
            self.add(node, f"file: {full}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        dotted = _dotted(node)
        if dotted and "." in dotted:
            self._name(node, self.real(dotted))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = self.real(_dotted(func)) if _dotted(func) else ""
        method = func.attr if isinstance(func, ast.Attribute) else ""
        if name.startswith(f"{KIT_MODULE}."):  # a function of the kit (``files.read_text``): the way, not past it
            self.generic_visit(node)
            return
        if name in {"open", "io.open", "codecs.open"} or (method == "open" and name not in {"os.open"}):
            position = 0 if method == "open" and name not in {"io.open", "codecs.open"} else 1
            kind = "write" if _opens_to_write(_mode(node, position)) else "read"
            self.add(node, f"{kind}: {name or '.' + method}(...) opens a file")
        elif name == "os.open":
            flags = (
                {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
                if len(node.args) > 1
                else set()
            )
            self.add(node, f"{'write' if flags & OS_WRITE_FLAGS else 'read'}: os.open")
        elif method in PATH_WRITES and name.partition(".")[0] != "os":
            self.add(node, f"write: .{method}()")
        elif method in PATH_READS:
            self.add(node, f"read: .{method}()")
        elif (
            method in {"replace", "rename"}
            and len(node.args) == 1
            and not node.keywords
            and name.partition(".")[0] not in {"os", "dataclasses"}
        ):
            self.add(node, f"write: .{method}() of a path")
        elif method in PARSER_METHODS:
            self.add(node, f"parse: .{method}()")
        if method in NETWORK_CALLS:
            self.add(node, f"network: .{method}()")
        self.generic_visit(node)


def offences(source: str) -> list[tuple[int, str]]:
    """(line, offence) for each way past the kit in a module's ``source``, in line order."""
    scan = _Scan()
    scan.visit(ast.parse(source))
    return sorted(set(scan.found))


def _package_offences() -> list[tuple[str, str]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if KIT in path.parents:
            continue
        where = str(path.relative_to(PACKAGE.parent))
        found += [(where, f"{line}: {what}") for line, what in offences(path.read_text(encoding="utf-8"))]
    return found


def test_files_parsers_and_the_network_are_reached_only_through_the_kit() -> None:
    found = [
        f"{where}:{what}" for where, what in _package_offences() if (where, what.split(": ", 1)[1]) not in ALLOWLIST
    ]
    assert found == [], "ways past gpupools/untrusted (add what is needed to the kit):\n" + "\n".join(found)


def test_the_allowlist_only_shrinks() -> None:
    now = {(where, what.split(": ", 1)[1]) for where, what in _package_offences()}
    assert ALLOWLIST <= now and not ALLOWLIST, f"the allowlist must be empty: {sorted(ALLOWLIST)}"


@pytest.mark.parametrize(
    "line, expected",
    [
        ("Path('x').write_text('y')", "write: .write_text()"),
        ("p.write_bytes(b'')", "write: .write_bytes()"),
        ("open('x', 'w').write('y')", "write: open(...) opens a file"),
        ("open('x', mode='a')", "write: open(...) opens a file"),
        ("open('x', 'r+b')", "write: open(...) opens a file"),
        ("Path('x').open('x')", "write: .open(...) opens a file"),
        ("import os\nos.open('x', os.O_WRONLY | os.O_CREAT)", "write: os.open"),
        ("temporary.replace(target)", "write: .replace() of a path"),
        ("p.rename('y')", "write: .rename() of a path"),
        ("import os\nos.replace('a', 'b')", "write: os.replace"),
        ("from os import rename", "write: os.rename"),
        ("import tempfile", "file: imports tempfile"),
        ("import shutil\nshutil.copyfile('a', 'b')", "write: shutil.copyfile"),
        ("p.mkdir(parents=True)", "write: .mkdir()"),
        ("open('x')", "read: open(...) opens a file"),
        ("Path('x').read_text()", "read: .read_text()"),
        ("files('gpupools').joinpath('a.json').read_bytes()", "read: .read_bytes()"),
        ("import os\nos.open('x', os.O_RDONLY)", "read: os.open"),
        ("import json\njson.loads('1')", "parse: json.loads"),
        ("import json as j\nj.load(f)", "parse: json.load"),
        ("from json import loads", "parse: json.loads"),
        ("import yaml\nyaml.safe_load('a')", "parse: yaml.safe_load"),
        ("from yaml import load_all", "parse: yaml.load_all"),
        ("import tomllib\ntomllib.loads('')", "parse: tomllib.loads"),
        ("Model.model_validate_json('{}')", "parse: .model_validate_json()"),
        ("import urllib.request", "network: imports urllib.request"),
        ("from http import client", "network: imports http.client"),
        ("import socket", "network: imports socket"),
        ("import httpx", "network: imports httpx"),
        ("x.create_connection(('h', 1))", "network: .create_connection()"),
        ("import asyncio\nasyncio.open_connection('h', 1)", "network: .open_connection()"),
    ],
)
def test_the_scan_flags_each_way_past_the_kit(line: str, expected: str) -> None:
    """The rule is not vacuous: a synthetic module with one forbidden spelling is flagged, and named as such."""
    assert expected in [what for _, what in offences(line)]


@pytest.mark.parametrize(
    "line",
    [
        "text.replace('a', 'b')",
        "dataclasses.replace(pool, size=1)",
        "day.replace(tzinfo=None)",
        "import json\njson.dumps({})",
        "import yaml\nyaml.safe_dump({})",
        "from urllib.parse import quote",
        "from ..untrusted.files import read_text\nread_text(path, 'stack file')",
        "from ..untrusted import files\nfiles.read_text(path, 'stack file')",
        "from .. import untrusted\nuntrusted.files.read_text(path)",
    ],
)
def test_the_scan_passes_what_is_not_a_way_past_the_kit(line: str) -> None:
    assert offences(line) == []


def test_a_write_text_added_to_a_package_module_fails_the_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole test, not only the scanner: a copy of the package with one ``write_text`` in a domain module fails."""
    copy = tmp_path / "gpupools"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (copy / "domain" / "cost.py").write_text(
        (copy / "domain" / "cost.py").read_text() + "\n\ndef leak(path):\n    path.write_text('x')\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", copy)
    monkeypatch.setattr(sys.modules[__name__], "KIT", copy / "untrusted")
    with pytest.raises(AssertionError, match=r"gpupools/domain/cost\.py:\d+: write: \.write_text\(\)"):
        test_files_parsers_and_the_network_are_reached_only_through_the_kit()
