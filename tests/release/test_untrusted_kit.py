"""Untrusted input is read one way: JSON only through ``untrusted.strict_json`` and HTTP only through
``untrusted.http_client``. Read from the source with ``ast``: a ``json.loads``/``json.load`` call or an import of an
HTTP library (``urllib.request``, ``http.client``, ``requests``, ``httpx``, ...) or a raw socket connect outside
``gpupools/untrusted`` fails here, naming the file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "components" / "gpupools"
KIT = PACKAGE / "untrusted"
HTTP_MODULES = ("urllib.request", "urllib3", "http.client", "requests", "httpx", "aiohttp", "socket")
JSON_READERS = {"loads", "load"}


def _offences(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(root)
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            if node.module == "json" and JSON_READERS & {alias.name for alias in node.names}:
                found.append(f"{where}:{node.lineno}: imports a JSON reader from json")
        for name in names:
            if any(name == module or name.startswith(f"{module}.") for module in HTTP_MODULES):
                found.append(f"{where}:{node.lineno}: imports {name}")
        if (
            isinstance(node, ast.Attribute)
            and node.attr in JSON_READERS
            and isinstance(node.value, ast.Name)
            and node.value.id == "json"
        ):
            found.append(f"{where}:{node.lineno}: json.{node.attr}")
        if isinstance(node, ast.Attribute) and node.attr in {"create_connection", "urlopen"}:
            found.append(f"{where}:{node.lineno}: .{node.attr}")
    return found


def test_json_and_http_are_read_only_through_the_kit() -> None:
    offences = [
        offence for path in sorted(PACKAGE.rglob("*.py")) if KIT not in path.parents for offence in _offences(path)
    ]
    assert offences == []


def test_the_scan_sees_what_it_forbids(tmp_path: Path) -> None:
    """The rule is not vacuous: each forbidden spelling in a module is reported."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import json\nimport urllib.request\nfrom http import client\nimport httpx\n"
        "from json import loads\nx = json.loads('1')\nsocket.create_connection(('h', 1))\n",
        encoding="utf-8",
    )
    offences = _offences(sample, tmp_path)
    assert [offence.split(": ", 1)[1] for offence in offences] == [
        "imports urllib.request",
        "imports http.client",
        "imports httpx",
        "imports a JSON reader from json",
        "json.loads",
        ".create_connection",
    ]
