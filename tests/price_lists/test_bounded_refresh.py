"""refresh's network bounds against servers on 127.0.0.1 (issue 25): an offer file far larger than what is kept is
read as it arrives, never held whole; one deadline ends the whole refresh; an answer held whole is size-bounded."""

from __future__ import annotations

import json
import socket
import time
import tracemalloc
from pathlib import Path

import pytest

from gpupools.price_lists import aws
from gpupools.price_lists.errors import PriceSourceError
from gpupools.price_lists.price_source import read_streamed
from gpupools.price_lists.refresh import MAX_ANSWER_BYTES, NetworkFetcher
from support.one_connection_server import one_connection

OFFER = json.loads((Path(__file__).parent / "recorded_prices" / "aws_offer_us-east-1.json").read_text())


@pytest.fixture(autouse=True)
def _no_environment_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


def _huge_offer(filler_products: int, note: int) -> bytes:
    """The recorded offer file with many products gpupools does not keep, listed first (as in AWS's files), each
    padded with a ``note`` of that many characters."""
    filler = {
        f"FILL{n:08d}": {
            "sku": f"FILL{n:08d}",
            "productFamily": "Compute Instance",
            "attributes": {"instanceType": "m5.large", "regionCode": "us-east-1", "note": "x" * note},
        }
        for n in range(filler_products)
    }
    return json.dumps({**OFFER, "products": {**filler, **OFFER["products"]}}).encode()


def test_an_offer_file_is_read_as_it_arrives_not_held_whole() -> None:
    # About 28 MB in 10,000 products: their count, not their size, is what tracemalloc makes slow to decode.
    body = _huge_offer(10_000, 2_700)
    header = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
    with one_connection(lambda conn: (conn.sendall(header), conn.sendall(body))) as url:
        reader = aws.OfferReader("us-east-1", "t")
        tracemalloc.start()
        try:
            read_streamed(NetworkFetcher(time.monotonic() + 60), url, reader.feed)
            prices = reader.close()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert {p.size for p in prices} == {p.size for p in aws.parse(json.dumps(OFFER).encode(), "us-east-1", "t")}
    assert len(body) > 25 << 20 and peak < 8 << 20, peak  # a quarter of the body at most, whatever its size


def test_one_deadline_ends_the_whole_refresh_however_slowly_a_server_drips() -> None:
    def drip(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{")
        for _ in range(100):
            time.sleep(0.2)
            conn.sendall(b" ")

    with one_connection(drip) as url:
        start = time.monotonic()
        with pytest.raises(PriceSourceError, match="the deadline passed"):
            read_streamed(NetworkFetcher(start + 0.5), url, aws.OfferReader("us-east-1", "t").feed)
        assert time.monotonic() - start < 4  # the deadline holds: 0.5 s and the watchdog's shutdown


def test_a_body_shorter_than_its_content_length_is_refused() -> None:
    with one_connection(lambda conn: conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{}")) as url:
        with pytest.raises(PriceSourceError, match="98 bytes before the end it announced"):
            NetworkFetcher(time.monotonic() + 10)(url)


def test_an_answer_held_whole_is_bounded_by_size() -> None:
    size = MAX_ANSWER_BYTES + (1 << 20)
    header = f"HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n".encode()

    def flood(conn: socket.socket) -> None:
        conn.sendall(header)
        for _ in range(size >> 16):
            conn.sendall(b" " * 65536)

    with one_connection(flood) as url:
        with pytest.raises(PriceSourceError, match=f"larger than {MAX_ANSWER_BYTES >> 20} MiB"):
            NetworkFetcher(time.monotonic() + 60)(url)
