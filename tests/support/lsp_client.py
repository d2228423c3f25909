"""A minimal Language Server Protocol client for one request type: what an editor's hover shows.

It speaks JSON-RPC over stdio to ``pyright-langserver --stdio`` (the engine behind Pylance), opens one file and
asks for hovers; server requests are answered with empty results. Test support only.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any


class HoverClient:
    def __init__(self, server: Path, root: Path) -> None:
        self.process = subprocess.Popen(
            [str(server), "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
        )
        self.ids = 0
        self.root = root
        self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {"textDocument": {"hover": {"contentFormat": ["plaintext"]}}},
                "workspaceFolders": [{"uri": root.as_uri(), "name": "probe"}],
            },
        )
        self.notify("initialized", {})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        self.process.stdin.flush()

    def _receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while line := self.process.stdout.readline().decode().strip():
            name, _, value = line.partition(": ")
            if name.lower() == "content-length":
                length = int(value)
        if not length:
            raise RuntimeError("the language server closed its output")
        return json.loads(self.process.stdout.read(length))

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._send({"method": method, "params": params})

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.ids += 1
        self._send({"id": self.ids, "method": method, "params": params})
        while True:
            message = self._receive()
            if "method" in message and "id" in message:  # the server asks: configuration, progress, ...
                items = message.get("params", {}).get("items", [])
                answer = [{}] * len(items) if message["method"] == "workspace/configuration" else None
                self._send({"id": message["id"], "result": answer})
            elif message.get("id") == self.ids:
                return message.get("result")

    def open(self, path: Path) -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": path.read_text()}},
        )

    def hover(self, path: Path, line: int, column: int) -> str:
        """The hover text at a 0-based line and column ('' when there is none)."""
        result = self.request(
            "textDocument/hover",
            {"textDocument": {"uri": path.as_uri()}, "position": {"line": line, "character": column}},
        )
        return (result or {}).get("contents", {}).get("value", "")

    def close(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)
