"""One headless Chromium session driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``): no
port, no websocket library, no driver download. Commands are JSON messages ended by a NUL byte on the browser's
fd 3, answers and events come back the same way on its fd 4 (Chromium's ``remote_debugging_pipe`` transport)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser")
TRAMPOLINE = (
    "import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); os.execvp(sys.argv[3], sys.argv[3:])"
)


def chromium_path() -> str | None:
    """Debian's chromium (``.ci/install-chromium``), or None."""
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


class Browser:
    """A browser with one page; ``close`` (or ``with``) ends it."""

    def __init__(self, executable: str, width: int, height: int, timeout: float = 60.0):
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()
        # A small Python puts the two pipe ends at fds 3 and 4, where Chromium looks for them, then becomes Chromium
        # (a POSIX shell's redirections take one-digit fds only).
        self._process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                TRAMPOLINE,
                str(commands_read),
                str(answers_write),
                executable,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-pipe",
                "--no-first-run",
                "--hide-scrollbars",
                f"--window-size={width},{height}",
                "about:blank",
            ],  # fmt: skip
            pass_fds=(commands_read, answers_write),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(commands_read)
        os.close(answers_write)
        self._timeout = timeout
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        page = next(t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self._session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)  # fmt: skip

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def open(self, url: str) -> None:
        """Navigate and wait for the page's load event (images included)."""
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        while not any(event.get("method") == "Page.loadEventFired" for event in self.events):
            self.events.append(self._read())

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                           awaitPromise=True)  # fmt: skip
        if "exceptionDetails" in result:
            raise RuntimeError(str(result["exceptionDetails"]))
        return result["result"].get("value")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def _read(self) -> dict[str, Any]:
        import select

        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._answers], [], [], self._timeout)
            chunk = os.read(self._answers, 1 << 20) if ready else b""
            if not chunk:
                raise TimeoutError("chromium stopped answering")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._commands)
        os.close(self._answers)
