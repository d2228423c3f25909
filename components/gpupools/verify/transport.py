"""One bounded GET against the API server, through the untrusted-input kit's HTTP client, read as strict JSON.

The kit bounds time (the run's deadline, total), size (``MAX_BODY_BYTES``, gzip included) and TLS; here the
kubeconfig's connection becomes a URL, its proxy and headers, and each failure a ``RequestFailed`` saying whether
a retry may help, in verify's words. API servers do not redirect a GET: a 3xx is an answer like any other.
"""

from __future__ import annotations

from typing import Any, Callable
from urllib.parse import urlencode

from ..errors import GpupoolsError
from ..untrusted.http_client import HttpFailed, http_get
from ..untrusted.strict_json import JsonNotText, JsonRefused, JsonTooLarge, strict_loads
from .kubeconfig import Connection

MAX_BODY_BYTES = 64 << 20  # ours: a page of 500 GPU nodes is about 5 MB of JSON
MAX_JSON_DEPTH = 1000  # Kubernetes objects nest a few dozen levels (managedFields); Python's parser stops near 1000


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
    host = f"[{connection.host}]" if ":" in connection.host else connection.host
    target = connection.base_path + path + (f"?{urlencode({k: v for k, v in query.items() if v})}" if query else "")
    try:
        body = http_get(
            f"{connection.scheme}://{host}:{connection.port}{target}",
            deadline=deadline,
            clock=clock,
            max_bytes=MAX_BODY_BYTES,
            headers=connection.headers,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            ssl_context=connection.ssl_context,
            proxy=connection.proxy,
            max_redirects=0,
            user_agent="gpupools-verify",
        )
    except HttpFailed as error:
        if error.out_of_time:
            raise RequestFailed("the time given by --timeout ran out", transient=False) from None
        raise RequestFailed(str(error), error.transient, error.status) from None
    return parse_json(body)


def parse_json(body: bytes) -> Any:
    """Strict JSON: UTF-8, no NaN/Infinity, numbers of sane size, nesting within Python's recursion limit."""
    try:
        return strict_loads(body, max_depth=MAX_JSON_DEPTH)
    except JsonTooLarge:
        raise RequestFailed("sent JSON nested too deeply", transient=False) from None
    except JsonNotText:
        raise RequestFailed("sent a response that is not UTF-8 JSON", transient=False) from None
    except JsonRefused as error:
        raise RequestFailed(f"sent a response that is not JSON: {str(error)[:200]}", transient=False) from None
