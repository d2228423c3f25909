"""One connection on 127.0.0.1, answered by a test's own ``send``: for refresh's network bounds (issue 25)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def one_connection(send: Callable[[socket.socket], None]) -> Iterator[str]:
    """Accepts one connection, reads the request head, then hands the socket to ``send``; yields the URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)

    def run() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(60)  # sendall's timeout is for the whole body
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096) or b"\r\n\r\n"
            try:
                send(conn)
            except OSError:
                pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/offer.json"
    finally:
        listener.close()
        thread.join(10)
