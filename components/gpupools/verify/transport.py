"""One bounded GET against the API server: connect and read timeouts, a deadline, a body size cap, strict JSON.

A hostile or broken server must not hang, flood or crash ``verify``: every socket operation has a timeout no
longer than the time left; the body is read in pieces, so a slow drip ends at the deadline; a gzip body is
inflated at most to ``MAX_BODY_BYTES`` (a gzip bomb stops there); JSON with ``NaN``/``Infinity``, huge numbers
or deep nesting is refused. Each failure is a ``RequestFailed`` saying whether a retry may help.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import zlib
from typing import Any, Callable
from urllib.parse import urlencode

from ..config.safe_json import strict_loads
from ..errors import GpupoolsError
from .kubeconfig import Connection

MAX_BODY_BYTES = 64 << 20  # ours: a page of 500 GPU nodes is about 5 MB of JSON
MAX_REASON_CHARS = 200


class RequestFailed(GpupoolsError):
    """A request that did not give JSON; ``transient`` failures (connection, timeout, 5xx, 429) may be retried."""

    def __init__(self, message: str, transient: bool, status: int | None = None):
        super().__init__(message)
        self.transient = transient
        self.status = status


def get_json(
    connection: Connection,
    path: str,
    query: dict[str, Any],
    *,
    deadline: float,
    clock: Callable[[], float],
    connect_timeout: float,
    read_timeout: float,
) -> Any:
    """``GET path?query`` as parsed JSON, within ``deadline`` (a ``clock()`` value)."""
    target = connection.base_path + path + (f"?{urlencode({k: v for k, v in query.items() if v})}" if query else "")
    remaining = _left(deadline, clock)
    host, port = connection.proxy or (connection.host, connection.port)
    timeout = min(connect_timeout, remaining)
    if connection.scheme == "https":
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            host, port, timeout=timeout, context=connection.ssl_context
        )
    else:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
    if connection.proxy:
        conn.set_tunnel(connection.host, connection.port)
    try:
        conn.connect()
        sock = conn.sock
        sock.settimeout(min(read_timeout, _left(deadline, clock)))
        conn.putrequest("GET", target, skip_accept_encoding=True)
        for name, value in {
            "Accept": "application/json",
            "Accept-Encoding": "gzip",
            "User-Agent": "gpupools-verify",
            **connection.headers,
        }.items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        body = _read_body(response, sock, deadline, clock, read_timeout)
    except RequestFailed:
        raise
    except (socket.timeout, TimeoutError):
        raise RequestFailed("no answer within the timeout", transient=True) from None
    except ssl.SSLError as error:
        raise RequestFailed(f"TLS failed: {error.reason or type(error).__name__}", transient=False) from None
    except (OSError, http.client.HTTPException) as error:
        raise RequestFailed(_os_text(error), transient=True) from None
    finally:
        conn.close()
    if response.status != 200:
        reason = (response.reason or "")[:MAX_REASON_CHARS]
        transient = response.status >= 500 or response.status == 429
        raise RequestFailed(f"answered {response.status} {reason}".rstrip(), transient, response.status)
    return parse_json(body)


def _left(deadline: float, clock: Callable[[], float]) -> float:
    remaining = deadline - clock()
    if remaining <= 0:
        raise RequestFailed("the time given by --timeout ran out", transient=False)
    return remaining


def _read_body(
    response: http.client.HTTPResponse,
    sock: socket.socket,
    deadline: float,
    clock: Callable[[], float],
    read_timeout: float,
) -> bytes:
    encoding = (response.getheader("Content-Encoding") or "identity").strip().lower()
    if encoding not in ("identity", "gzip"):
        raise RequestFailed(f"sent a body in an encoding gpupools does not read ({encoding[:40]!r})", transient=False)
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding == "gzip" else None
    body = bytearray()
    received = 0
    while True:
        sock.settimeout(min(read_timeout, _left(deadline, clock)))
        chunk = response.read1(65536)
        if not chunk:
            break
        received += len(chunk)
        if inflate is not None:
            try:
                chunk = inflate.decompress(chunk, MAX_BODY_BYTES + 1 - len(body))
            except zlib.error:
                raise RequestFailed("sent a gzip body that is not valid gzip", transient=False) from None
            if inflate.unconsumed_tail:
                chunk += b"x"  # more output than the limit allows
        body += chunk
        if len(body) > MAX_BODY_BYTES or received > MAX_BODY_BYTES:
            raise RequestFailed(
                f"sent a response larger than {MAX_BODY_BYTES >> 20} MiB, the limit gpupools reads", transient=False
            )
    return bytes(body)


def parse_json(body: bytes) -> Any:
    """Strict JSON: UTF-8, no NaN/Infinity, numbers of sane size, nesting within Python's recursion limit."""
    try:
        return strict_loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise RequestFailed("sent a response that is not UTF-8 JSON", transient=False) from None
    except RecursionError:
        raise RequestFailed("sent JSON nested too deeply", transient=False) from None
    except ValueError as error:
        raise RequestFailed(f"sent a response that is not JSON: {str(error)[:200]}", transient=False) from None


def _os_text(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__
