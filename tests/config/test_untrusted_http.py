"""The kit's one HTTP client against real servers on 127.0.0.1: plain sockets and TLS with a throwaway certificate,
a server that drips, one that floods, a redirect to http, and a CONNECT proxy named by HTTPS_PROXY."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpupools.untrusted.http_client import HttpFailed, http_get

SECRET = "s3cret-t0ken-value"
Handler = Callable[[socket.socket], None]


@pytest.fixture(autouse=True)
def _no_environment_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a throwaway certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        + ["-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
        timeout=20,
    )
    return cert, key


def _serve(handler: Handler, tls: tuple[Path, Path] | None = None, connections: int = 4) -> Iterator[int]:
    """A server on 127.0.0.1 that runs ``handler`` on at most ``connections`` connections; yields its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    context = None
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
    stop = threading.Event()

    def run() -> None:
        served = 0
        while not stop.is_set() and served < connections:
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            served += 1
            conn.settimeout(2)
            try:
                if context:
                    conn = context.wrap_socket(conn, server_side=True)
                _read_request(conn)
                handler(conn)
            except OSError:
                pass
            finally:
                conn.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        try:  # wakes a waiting accept at once (Linux), not at its next timeout
            listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        thread.join(2)
        listener.close()


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 65536:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def _answer(body: bytes, status: str = "200 OK", extra: str = "") -> Handler:
    def handler(conn: socket.socket) -> None:
        conn.sendall(f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n{extra}Connection: close\r\n\r\n".encode())
        conn.sendall(body)

    return handler


def _trusting(cert: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(cert))


def test_tls_answer_is_read_and_an_untrusted_certificate_is_refused(certificate: tuple[Path, Path]) -> None:
    server = _serve(_answer(b'{"ok": true}'), tls=certificate)
    port = next(server)
    url = f"https://127.0.0.1:{port}/x"
    deadline = time.monotonic() + 1.5
    assert http_get(url, deadline=deadline, max_bytes=1000, ssl_context=_trusting(certificate[0])) == b'{"ok": true}'
    with pytest.raises(HttpFailed, match="TLS failed"):
        http_get(url, deadline=time.monotonic() + 1.5, max_bytes=1000)  # the system's trust store: not ours
    server.close()


@pytest.mark.parametrize(
    ("head", "drop"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", b"x"),  # the body, a byte at a time
        (b"HTTP/1.1 200 OK\r\n", b"X-A: b\r\n"),  # the headers, a line at a time
    ],
    ids=["body", "headers"],
)
def test_a_server_that_drips_hits_the_total_deadline(head: bytes, drop: bytes) -> None:
    def drip(conn: socket.socket) -> None:
        conn.sendall(head)
        for _ in range(40):  # 2 s of drip, each piece well inside the per-read timeout
            conn.sendall(drop)
            time.sleep(0.05)

    server = _serve(drip)
    port = next(server)
    start = time.monotonic()
    with pytest.raises(HttpFailed) as failed:
        http_get(f"http://127.0.0.1:{port}/", deadline=start + 0.2, max_bytes=10_000, read_timeout=5)
    assert failed.value.out_of_time and time.monotonic() - start < 0.6  # the drip goes on for 2 s
    server.close()


def test_an_oversized_answer_hits_the_size_bound() -> None:
    server = _serve(_answer(b"x" * (3 << 20)))
    port = next(server)
    with pytest.raises(HttpFailed, match="larger than 1 MiB"):
        http_get(f"http://127.0.0.1:{port}/", deadline=time.monotonic() + 1.5, max_bytes=1 << 20)
    server.close()


def test_a_redirect_from_https_to_http_is_refused(certificate: tuple[Path, Path]) -> None:
    plain = _serve(_answer(b"{}"))
    plain_port = next(plain)
    target = f"http://127.0.0.1:{plain_port}/prices?token={SECRET}"
    server = _serve(_answer(b"", "302 Found", f"Location: {target}\r\n"), tls=certificate)
    port = next(server)
    with pytest.raises(HttpFailed, match="not https") as failed:
        http_get(
            f"https://127.0.0.1:{port}/",
            deadline=time.monotonic() + 1.5,
            max_bytes=1000,
            ssl_context=_trusting(certificate[0]),
        )
    assert SECRET not in str(failed.value) and f"http://127.0.0.1:{plain_port}/prices" in str(failed.value)
    server.close()
    plain.close()


def test_a_proxy_from_https_proxy_is_used_through_connect(
    certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _serve(_answer(b'{"via": "proxy"}'), tls=certificate)
    port = next(server)
    seen: list[bytes] = []

    def tunnel(client: socket.socket) -> None:
        target = socket.create_connection(("127.0.0.1", port), timeout=2)
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        client.settimeout(0.05)
        target.settimeout(0.05)
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            for source, sink in ((client, target), (target, client)):
                try:
                    data = source.recv(65536)
                except (TimeoutError, socket.timeout):
                    continue
                if not data:
                    target.close()
                    return
                sink.sendall(data)

    proxy_listener = socket.create_server(("127.0.0.1", 0))
    proxy_listener.settimeout(1.5)

    def proxy() -> None:
        try:
            client, _ = proxy_listener.accept()
        except OSError:
            return
        client.settimeout(2)
        seen.append(_read_request(client))
        tunnel(client)
        client.close()

    thread = threading.Thread(target=proxy, daemon=True)
    thread.start()
    monkeypatch.setenv("HTTPS_PROXY", f"http://user:{SECRET}@127.0.0.1:{proxy_listener.getsockname()[1]}")
    body = http_get(
        f"https://127.0.0.1:{port}/x",
        deadline=time.monotonic() + 1.5,
        max_bytes=1000,
        ssl_context=_trusting(certificate[0]),
    )
    thread.join(2)
    proxy_listener.close()
    server.close()
    assert body == b'{"via": "proxy"}'
    assert seen and seen[0].startswith(f"CONNECT 127.0.0.1:{port} HTTP/".encode())
    assert b"Proxy-Authorization: Basic " in seen[0]


def test_no_proxy_skips_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    server = _serve(_answer(b"direct"))
    port = next(server)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert http_get(f"http://127.0.0.1:{port}/", deadline=time.monotonic() + 1.5, max_bytes=100) == b"direct"
    server.close()


def test_no_credential_reaches_an_error_text(monkeypatch: pytest.MonkeyPatch) -> None:
    server = _serve(_answer(b"no", "401 Unauthorized"))
    port = next(server)
    texts = []
    for url, headers in (
        (f"http://127.0.0.1:{port}/", {"Authorization": f"Bearer {SECRET}"}),
        (f"http://user:{SECRET}@127.0.0.1:{port}/", {}),
        (f"http://127.0.0.1:{port}/", {"Authorization": f"Bearer {SECRET}\r\nX-Injected: 1"}),
    ):
        with pytest.raises(HttpFailed) as failed:
            http_get(url, deadline=time.monotonic() + 1.5, max_bytes=100, headers=headers)
        texts.append(str(failed.value))
    monkeypatch.setenv("HTTP_PROXY", f"http://user:{SECRET}@127.0.0.1:9")
    with pytest.raises(HttpFailed) as failed:
        http_get(f"http://127.0.0.1:{port}/", deadline=time.monotonic() + 1.5, max_bytes=100)
    texts.append(str(failed.value))
    server.close()
    assert texts[0] == "answered 401 Unauthorized"
    assert all(SECRET not in text for text in texts), texts
