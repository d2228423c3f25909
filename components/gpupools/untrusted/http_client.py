"""The package's one HTTP client: a GET with bounded size and a total deadline, verified TLS, proxies from the
environment, https-only redirects, and no credential in any error.

A hostile or broken server must not hang, flood or crash a command. The deadline is total, not per socket
operation: connecting (TCP, proxy CONNECT, TLS handshake) is bounded by the time left, and from then on a watchdog
shuts the socket when the deadline passes, so a server dripping its headers or body a byte at a time ends there.
The body is read in pieces up to ``max_bytes`` (a gzip body is inflated at most to that, so a gzip bomb stops
there). TLS uses the system's trust store unless the caller gives its own context. ``HTTPS_PROXY``/``HTTP_PROXY``
and ``NO_PROXY`` are honoured, through an http CONNECT tunnel. Redirects are followed only while they stay https
when the request started so, and credentials (``Authorization``, ``Cookie``) are not sent to another host. Error
texts name at most a URL's scheme, host, port and path: never user info, a query, a header value or a proxy's
password. The host name lookup is not bounded by the deadline (the resolver offers no timeout).
"""

from __future__ import annotations

import base64
import http.client
import socket
import ssl
import threading
import time
import zlib
from typing import Any, Callable, Iterator, Mapping
from urllib.parse import unquote, urljoin, urlsplit

# proxy_bypass_environment is in CPython's urllib.request but not in typeshed's stub of it.
from urllib.request import getproxies_environment, proxy_bypass_environment  # pyright: ignore[reportAttributeAccessIssue]

from ..errors import GpupoolsError
from .text import terminal_safe

MAX_REASON_CHARS = 200
MAX_REDIRECTS = 5
REDIRECTS = frozenset({301, 302, 303, 307, 308})
CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})
FROM_ENVIRONMENT: Any = "from-environment"  # the default ``proxy``: HTTPS_PROXY, HTTP_PROXY and NO_PROXY

Proxy = tuple[str, int]


class HttpFailed(GpupoolsError):
    """A GET that gave no usable body; ``transient`` failures (connection, timeout, 5xx, 429) may be retried,
    ``out_of_time`` says the deadline passed, ``status`` is the HTTP status when there was an answer."""

    def __init__(self, message: str, transient: bool, status: int | None = None, out_of_time: bool = False):
        super().__init__(message)
        self.transient = transient
        self.status = status
        self.out_of_time = out_of_time


def safe_url(url: str) -> str:
    """``url`` as it may be printed: scheme, host, port and path; no user info, query or fragment."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(a URL that cannot be parsed)"
    host = f"[{host}]" if ":" in host else host
    return terminal_safe(f"{parts.scheme}://{host}{port}{parts.path}")


def http_get(
    url: str,
    *,
    deadline: float,
    max_bytes: int,
    clock: Callable[[], float] = time.monotonic,
    headers: Mapping[str, str] | None = None,
    connect_timeout: float = 10.0,
    read_timeout: float = 30.0,
    ssl_context: ssl.SSLContext | None = None,
    proxy: Proxy | None = FROM_ENVIRONMENT,
    max_redirects: int = MAX_REDIRECTS,
    accept: str = "application/json",
    user_agent: str = "gpupools",
    sink: Callable[[bytes], None] | None = None,
    low_speed: tuple[int, float] | None = None,
) -> bytes:
    """The body of a 200 answer to ``GET url``, finished before ``deadline`` (a ``clock()`` value); anything else
    is an ``HttpFailed``. ``proxy`` is a ``(host, port)`` to CONNECT through, None for none, or the environment's.
    With a ``sink``, a 200 answer's body goes to it piece by piece as it arrives (never held whole; an exception
    from the sink ends the request and is raised as it is) and the result is empty."""
    secure = url.startswith("https://")
    sent = {"Accept": accept, "Accept-Encoding": "gzip", "User-Agent": user_agent, **(headers or {})}
    _check_headers(sent)
    for hop in range(max_redirects + 1):
        status, reason, location, body = _exchange(
            url, sent, deadline, clock, connect_timeout, read_timeout, ssl_context, proxy, max_bytes, sink, low_speed
        )
        if status in REDIRECTS and location and hop < max_redirects:
            url, sent = _redirect(url, location, sent, secure, status)
            continue
        if status != 200:
            text = f"answered {status} {terminal_safe(reason[:MAX_REASON_CHARS])}".rstrip()
            raise HttpFailed(text, status >= 500 or status == 429, status)
        return body
    raise HttpFailed(f"redirected more than {max_redirects} times", transient=False)


def _redirect(url: str, location: str, sent: dict[str, str], secure: bool, status: int) -> tuple[str, dict[str, str]]:
    target = urljoin(url, location)
    before, after = urlsplit(url), urlsplit(target)
    if after.scheme not in ("http", "https") or (secure and after.scheme != "https"):
        raise HttpFailed(
            f"redirected to {safe_url(target)}, which is not https; gpupools follows https redirects only",
            transient=False,
            status=status,
        )
    if (before.hostname, before.port) != (after.hostname, after.port):  # credentials stay with their host
        sent = {name: value for name, value in sent.items() if name.lower() not in CREDENTIAL_HEADERS}
    return target, sent


def _check_headers(headers: Mapping[str, str]) -> None:
    """http.client would put a refused header's value into its error text: check first, name only the header."""
    for name, value in headers.items():
        if not (name.isascii() and name.isprintable() and name and ":" not in name and " " not in name):
            raise HttpFailed(f"a request header name {terminal_safe(name[:40])!r} is not a valid name", False)
        if not (value.isascii() and value.isprintable()):
            raise HttpFailed(f"the {name} header holds a line break or a non-ASCII character (value not shown)", False)


def _target(url: str) -> tuple[str, str, int, str]:
    if not url.isascii() or not url.isprintable() or " " in url:
        raise HttpFailed("the URL holds a space, a control or a non-ASCII character (not shown)", transient=False)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise HttpFailed(f"{safe_url(url)} is not a URL with a valid port", transient=False) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpFailed(f"{safe_url(url)} is not an http(s) URL with a host", transient=False)
    if parts.username is not None or parts.password is not None:
        raise HttpFailed(
            f"{safe_url(url)} holds user info; gpupools sends credentials in headers only (not shown)", False
        )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80), path


def _exchange(
    url: str,
    headers: dict[str, str],
    deadline: float,
    clock: Callable[[], float],
    connect_timeout: float,
    read_timeout: float,
    ssl_context: ssl.SSLContext | None,
    proxy: Proxy | None,
    max_bytes: int,
    sink: Callable[[bytes], None] | None = None,
    low_speed: tuple[int, float] | None = None,
) -> tuple[int, str, str | None, bytes]:
    """One request and its bounded answer: status, reason, Location, body."""
    scheme, host, port, path = _target(url)
    tunnel_headers: dict[str, str] = {}
    if proxy is FROM_ENVIRONMENT:
        proxy, tunnel_headers = environment_proxy(scheme, host)
    address = proxy or (host, port)
    timeout = min(connect_timeout, _left(deadline, clock))
    if scheme == "https":
        context = ssl_context or ssl.create_default_context()
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(*address, timeout=timeout, context=context)
    else:
        conn = http.client.HTTPConnection(*address, timeout=timeout)
    if proxy:
        conn.set_tunnel(host, port, headers=tunnel_headers)
    watchdog = head_watchdog = _Watchdog()
    try:
        conn.connect()
        sock = conn.sock  # http.client drops conn.sock once an answer says it closes the connection
        head_seconds = min(low_speed[1], _left(deadline, clock)) if low_speed else _left(deadline, clock)
        head_watchdog.start(sock, head_seconds)
        sock.settimeout(min(read_timeout, _left(deadline, clock)))
        conn.putrequest("GET", path, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        head_watchdog.cancel()
        if head_watchdog.fired:  # fired as the head arrived: the socket is shut
            raise _late_head(low_speed, clock() >= deadline)
        watchdog = _Watchdog()
        watchdog.start(sock, _left(deadline, clock))
        if response.status != 200:  # a redirect's or an error's body is never used: not read at all
            return response.status, response.reason or "", response.getheader("Location"), b""
        body = _read_body(response, sock, deadline, clock, read_timeout, max_bytes, sink, low_speed)
        if watchdog.fired:  # the socket was shut under the read: what came is cut short
            raise _failure(TimeoutError(), out_of_time=True)
        if response.length:  # read1 ends quietly when the server closes before the Content-Length it announced
            raise HttpFailed(f"closed the connection {response.length} bytes before the end it announced", True)
        return response.status, response.reason or "", response.getheader("Location"), body
    except HttpFailed:
        raise
    except Exception as error:
        if head_watchdog.fired:
            raise _late_head(low_speed, clock() >= deadline) from None
        raise _failure(error, watchdog.fired or head_watchdog.fired or clock() >= deadline) from None
    finally:
        head_watchdog.cancel()
        watchdog.cancel()
        conn.close()


def _late_head(low_speed: tuple[int, float] | None, out_of_time: bool) -> HttpFailed:
    if low_speed is None or out_of_time:
        return _failure(TimeoutError(), out_of_time=True)
    return HttpFailed(f"sent no complete answer head within {low_speed[1]:g} s", transient=True)


def _failure(error: Exception, out_of_time: bool) -> HttpFailed:
    if out_of_time:
        return HttpFailed("the deadline passed before the answer was complete", transient=False, out_of_time=True)
    if isinstance(error, (socket.timeout, TimeoutError)):
        return HttpFailed("no answer within the timeout", transient=True)
    if isinstance(error, ssl.SSLError):
        return HttpFailed(f"TLS failed: {error.reason or type(error).__name__}", transient=False)
    if isinstance(error, (OSError, http.client.HTTPException)):
        return HttpFailed(terminal_safe(_os_text(error))[:MAX_REASON_CHARS], transient=True)
    raise error


class _Watchdog:
    """Shuts the connection's socket when the deadline passes, wherever the read is blocked (headers or body)."""

    def __init__(self) -> None:
        self._sock: socket.socket | None = None
        self._timer: threading.Timer | None = None
        self.fired = False

    def start(self, sock: socket.socket, seconds: float) -> None:
        self._sock = sock
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        sock = self._sock
        if sock is not None:
            try:  # the plain socket's shutdown: an SSLSocket's own would tear down state the reader is using
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def environment_proxy(scheme: str, host: str) -> tuple[Proxy | None, dict[str, str]]:
    """The proxy the environment names for ``scheme`` (``HTTPS_PROXY``, ...), unless ``NO_PROXY`` lists ``host``,
    and the ``Proxy-Authorization`` its user info asks for."""
    proxies = getproxies_environment()
    value = proxies.get(scheme)
    if not value or proxy_bypass_environment(host, proxies):
        return None, {}
    variable = f"{scheme.upper()}_PROXY"
    try:
        parts = urlsplit(value if "://" in value else f"http://{value}")
        port = parts.port or 80
    except ValueError:
        raise HttpFailed(f"{variable} is not a URL with a valid port (value not shown)", transient=False) from None
    if parts.scheme != "http" or not parts.hostname:
        raise HttpFailed(f"{variable} is not an http:// proxy URL (value not shown)", transient=False)
    headers = {}
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        headers["Proxy-Authorization"] = f"Basic {base64.b64encode(pair).decode('ascii')}"
    return (parts.hostname, port), headers


def _left(deadline: float, clock: Callable[[], float]) -> float:
    remaining = deadline - clock()
    if remaining <= 0:
        raise HttpFailed("the deadline passed before the answer was complete", transient=False, out_of_time=True)
    return remaining


def _read_body(
    response: http.client.HTTPResponse,
    sock: socket.socket,
    deadline: float,
    clock: Callable[[], float],
    read_timeout: float,
    max_bytes: int,
    sink: Callable[[bytes], None] | None = None,
    low_speed: tuple[int, float] | None = None,
) -> bytes:
    encoding = (response.getheader("Content-Encoding") or "identity").strip().lower()
    if encoding not in ("identity", "gzip"):
        raise HttpFailed(
            f"sent a body in an encoding gpupools does not read ({terminal_safe(encoding[:40])!r})", transient=False
        )
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding == "gzip" else None
    body = bytearray()
    received = inflated = 0
    window_start, window_bytes = clock(), 0
    while True:
        sock.settimeout(min(read_timeout, _left(deadline, clock)))
        chunk = response.read1(65536)
        if not chunk:
            break
        received += len(chunk)
        window_bytes += len(chunk)
        if low_speed and clock() - window_start >= low_speed[1]:
            if window_bytes < low_speed[0]:
                raise HttpFailed(
                    f"sent {window_bytes} bytes in {clock() - window_start:.0f} s, fewer than {low_speed[0]} "
                    f"in {low_speed[1]:g} s",
                    transient=True,
                )
            window_start, window_bytes = clock(), 0
        for piece in _inflated(inflate, chunk) if inflate is not None else (chunk,):
            inflated += len(piece)
            if inflated > max_bytes or received > max_bytes:
                raise HttpFailed(f"sent a response larger than {_size(max_bytes)}, the limit gpupools reads", False)
            if sink is not None:
                sink(piece)
            else:
                body += piece
    return bytes(body)


INFLATED_PIECE = 1 << 20


def _inflated(inflate: Any, chunk: bytes) -> Iterator[bytes]:
    """``chunk`` of a gzip body inflated a MiB at a time: a bomb's 64 KB never becomes 64 MB held at once."""
    data = chunk
    while data:
        try:
            piece = inflate.decompress(data, INFLATED_PIECE)
        except zlib.error:
            raise HttpFailed("sent a gzip body that is not valid gzip", transient=False) from None
        yield piece
        data = inflate.unconsumed_tail


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"


def _os_text(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__
