"""refresh ends at a server that drips or stays silent, long before its 15-minute deadline (issue 25's catalogue:
every case under 15 s): an answer head not complete, or a body bringing fewer than ``LOW_SPEED`` bytes, within the
window ends the request, and a request whose server keeps sending at speed is not cut."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import pytest

from gpupools.price_lists import refresh as refresh_module
from gpupools.price_lists.errors import PriceSourceError
from gpupools.price_lists.refresh import NetworkFetcher
from support.one_connection_server import one_connection


@pytest.fixture(autouse=True)
def _short_window(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    # Half-second windows instead of the product's 10 s: the same rule, waited out in a twentieth of the time.
    monkeypatch.setattr(refresh_module, "LOW_SPEED", (1024, 0.5))
    monkeypatch.setattr(refresh_module, "SILENCE_SECONDS", 0.5)


def _drip(head: bytes, byte: bytes, seconds: float = 6.0) -> Callable[[socket.socket], None]:
    def send(conn: socket.socket) -> None:
        conn.sendall(head)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            conn.sendall(byte)
            time.sleep(0.1)

    return send


@pytest.mark.parametrize(
    ("send", "says"),
    [
        (_drip(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n", b" "), "fewer than 1024 in 0.5 s"),
        (_drip(b"HTTP/1.1 200 OK\r\n", b"X"), "no complete answer head within 0.5 s"),
    ],
    ids=["body", "head"],
)
def test_a_dripping_server_ends_the_request_at_the_low_speed_window(send, says: str) -> None:
    with one_connection(send) as url:
        start = time.monotonic()
        with pytest.raises(PriceSourceError, match=says):
            NetworkFetcher(start + 60)(url)
        assert time.monotonic() - start < 4  # the window, not the deadline


def test_a_server_sending_at_speed_is_not_cut() -> None:
    def steady(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 30000\r\n\r\n")
        for _ in range(15):  # 2 KB every 0.05 s for 0.75 s: more than 1024 bytes in every half second
            conn.sendall(b" " * 2000)
            time.sleep(0.05)

    with one_connection(steady) as url:
        assert NetworkFetcher(time.monotonic() + 60)(url) == b" " * 30000
