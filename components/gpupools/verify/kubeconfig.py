"""Reading a kubeconfig into what one HTTPS request needs, without ever printing a credential.

The kubeconfig is untrusted input like a stack file: it is read with the untrusted-input kit (``untrusted.files``,
``safe_yaml``, ``strict_json``), and so is every file it names (CA, client certificate and key, ``tokenFile``).
Credentials (URL user info, tokens, passwords, client keys, exec arguments and output) go into the request and nowhere
else: errors name the kubeconfig field, never its value. Supported as ``kubectl`` does: the current context,
files merged from ``KUBECONFIG`` (first file wins), server CA and ``insecure-skip-tls-verify``, client
certificates, bearer tokens and token files, basic auth, ``proxy-url`` (http CONNECT), and exec plugins
(``client.authentication.k8s.io`` ExecCredential: ``aws eks get-token``, ``kubelogin``).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import select
import ssl
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import unquote, urlsplit

from ..untrusted.files import FileRefused, read_limited, read_text
from ..untrusted.private_files import private_files
from ..untrusted.safe_yaml import YamlRefused, load_yaml
from ..untrusted.strict_json import JsonRefused, strict_loads
from ..untrusted.text import terminal_safe
from ..errors import GpupoolsError

DEFAULT_KUBECONFIG = "~/.kube/config"
MAX_KUBECONFIG_BYTES = 1 << 20
MAX_NAMED_FILE_BYTES = 1 << 20  # a CA bundle, a certificate, a key or a token file
MAX_EXEC_OUTPUT_BYTES = 1 << 20


class KubeconfigError(GpupoolsError):
    """The kubeconfig cannot be used; the message names a field or file, never a credential."""


@dataclass(frozen=True)
class Connection:
    """Where to send requests and how to authenticate; ``shown`` is the server URL safe to print."""

    scheme: str
    host: str
    port: int
    base_path: str
    shown: str
    ssl_context: ssl.SSLContext | None = field(default=None, repr=False)
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    proxy: tuple[str, int] | None = None


def resolve_kubeconfig(flag: str | os.PathLike[str] | None, environ: Mapping[str, str] = os.environ) -> str:
    """The flag, else ``KUBECONFIG`` (a path list, as kubectl reads it), else ``~/.kube/config``."""
    if flag:
        return str(flag)
    return environ.get("KUBECONFIG") or str(Path(DEFAULT_KUBECONFIG).expanduser())


def load_connection(paths: str, deadline: float, clock: Callable[[], float] = time.monotonic) -> Connection:
    """The current context's cluster and user, from the files in ``paths`` (``os.pathsep``-separated)."""
    files = [Path(part).expanduser() for part in paths.split(os.pathsep) if part]
    existing = [path for path in files if path.exists()]
    if not existing:
        raise KubeconfigError(f"kubeconfig {paths} does not exist (pass --kubeconfig or set KUBECONFIG)")
    merged: dict[str, Any] = {"clusters": {}, "users": {}, "current-context": None, "contexts": {}}
    for path in existing:
        document = _read_document(path)
        for section in ("clusters", "users", "contexts"):
            for entry in _named_entries(document, section, path):
                merged[section].setdefault(entry[0], entry)
        if not merged["current-context"] and isinstance(document.get("current-context"), str):
            merged["current-context"] = document["current-context"]
    where = str(existing[0])
    name = merged["current-context"]
    if not name:
        raise KubeconfigError(f"cannot read kubeconfig {where}: current-context is not set")
    context, _ = _section(merged, "contexts", name, "context", where)
    cluster_name, user_name = context.get("cluster"), context.get("user")
    cluster = _section(merged, "clusters", cluster_name, "cluster", where)
    user = _section(merged, "users", user_name, "user", where) if user_name else ({}, "")
    return _connection(cluster, user, deadline, clock)


def _read_document(path: Path) -> dict[str, Any]:
    try:
        document = load_yaml(read_text(path, "kubeconfig", MAX_KUBECONFIG_BYTES))
    except FileRefused as error:
        raise KubeconfigError(f"cannot read kubeconfig: {error}") from None
    except YamlRefused as refused:
        issue = refused.issues[0]
        raise KubeconfigError(f"cannot read kubeconfig {path}: line {issue.line}: {issue.message}") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise KubeconfigError(f"cannot read kubeconfig {path}: it is not a mapping (apiVersion, clusters, ...)")
    return document


def _named_entries(document: dict[str, Any], section: str, path: Path) -> list[tuple[str, dict, str]]:
    entries = document.get(section) or []
    if not isinstance(entries, list):
        raise KubeconfigError(f"cannot read kubeconfig {path}: {section} is not a list")
    found = []
    for index, entry in enumerate(entries):
        body = entry.get(section[:-1]) if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not isinstance(body or {}, dict):
            raise KubeconfigError(
                f"cannot read kubeconfig {path}: {section}[{index}] needs a name and a {section[:-1]} mapping"
            )
        found.append((entry["name"], body or {}, f"{section}[{index}] ({terminal_safe(entry['name'][:100])!r})"))
    return found


def _section(merged: dict, section: str, name: Any, kind: str, where: str) -> tuple[dict, str]:
    entry = merged[section].get(name) if isinstance(name, str) else None
    if entry is None:
        shown_name = terminal_safe(str(name)[:100]) if name is not None else "none"
        raise KubeconfigError(f"cannot read kubeconfig {where}: no {kind} named {shown_name!r}")
    return entry[1], entry[2]


def _connection(
    cluster_entry: tuple[dict, str], user_entry: tuple[dict, str], deadline: float, clock: Callable[[], float]
) -> Connection:
    cluster, at = cluster_entry
    user, user_at = user_entry
    server = cluster.get("server")
    if not isinstance(server, str) or not server:
        raise KubeconfigError(f"kubeconfig {at}: server is not set")
    try:
        url = urlsplit(server)
        port = url.port or (443 if url.scheme == "https" else 80)
    except ValueError:
        raise KubeconfigError(f"kubeconfig {at}: server is not a URL") from None
    if url.scheme not in ("https", "http") or not url.hostname:
        raise KubeconfigError(f"kubeconfig {at}: server must be an https:// (or http://) URL with a host")
    host = url.hostname
    shown = (
        f"{url.scheme}://{host if ':' not in host else f'[{host}]'}{f':{url.port}' if url.port else ''}"
        f"{url.path.rstrip('/')}"
    )
    for refused in ("tls-server-name",):
        if cluster.get(refused):
            raise KubeconfigError(f"kubeconfig {at}: {refused} is not supported by gpupools verify")
    for refused in ("auth-provider", "as", "as-groups", "as-uid"):
        if user.get(refused):
            raise KubeconfigError(
                f"kubeconfig {user_at}: {refused} is not supported by gpupools verify (use an exec plugin or a token)"
            )
    headers: dict[str, str] = {}
    certificate: tuple[bytes, bytes] | None = None
    if url.username is not None:  # user info in the URL is basic auth, as Go's net/http reads it
        headers["Authorization"] = _basic(unquote(url.username), unquote(url.password or ""), at)
    token = _string(user, "token", user_at) or _file_text(user, "tokenFile", user_at)
    if user.get("exec"):
        token, certificate = _exec_credential(user["exec"], user_at, deadline, clock)
    if token:
        headers["Authorization"] = _header_value(f"Bearer {token.strip()}", user_at, "token")
    elif user.get("username") is not None:
        headers["Authorization"] = _basic(
            _string(user, "username", user_at), _string(user, "password", user_at), user_at
        )
    if certificate is None:
        cert = _data_or_file(user, "client-certificate", user_at)
        key = _data_or_file(user, "client-key", user_at)
        if bool(cert) != bool(key):
            raise KubeconfigError(f"kubeconfig {user_at}: client-certificate and client-key go together")
        certificate = (cert, key) if cert and key else None
    context = None
    if url.scheme == "https":
        context = _tls_context(cluster, at, certificate)
    proxy = _proxy(cluster.get("proxy-url"), at)
    return Connection(url.scheme, host, port, url.path.rstrip("/"), shown, context, headers, proxy)


def _string(section: dict, key: str, at: str) -> str:
    value = section.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise KubeconfigError(f"kubeconfig {at}: {key} is not a string")
    return value


def _file_bytes(path_text: str, key: str, at: str) -> bytes:
    try:
        return read_limited(Path(path_text).expanduser(), key, MAX_NAMED_FILE_BYTES)
    except FileRefused as error:
        raise KubeconfigError(f"kubeconfig {at}: {key}: {error}") from None


def _file_text(section: dict, key: str, at: str) -> str:
    path_text = _string(section, key, at)
    if not path_text:
        return ""
    try:
        return _file_bytes(path_text, key, at).decode("utf-8")
    except UnicodeDecodeError:
        raise KubeconfigError(f"kubeconfig {at}: {key} is not UTF-8 text") from None


def _data_or_file(section: dict, key: str, at: str) -> bytes:
    data = _string(section, f"{key}-data", at)
    if data:
        try:
            return base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise KubeconfigError(f"kubeconfig {at}: {key}-data is not base64") from None
    path_text = _string(section, key, at)
    return _file_bytes(path_text, key, at) if path_text else b""


def _header_value(value: str, at: str, key: str) -> str:
    if not value.isprintable() or not value.isascii() or len(value) > 64 * 1024:
        raise KubeconfigError(
            f"kubeconfig {at}: {key} holds a line break, a control or non-ASCII character, or "
            "is longer than 64 KiB; it cannot be sent as an HTTP header (value not shown)"
        )
    return value


def _basic(username: str, password: str, at: str) -> str:
    encoded = base64.b64encode(f"{username}:{password}".encode()).decode("ascii")
    return _header_value(f"Basic {encoded}", at, "username/password")


def _tls_context(cluster: dict, at: str, certificate: tuple[bytes, bytes] | None) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if cluster.get("insecure-skip-tls-verify") is True:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        authority = _data_or_file(cluster, "certificate-authority", at)
        if authority:
            try:
                context = ssl.create_default_context(cadata=authority.decode("ascii"))
            except (ssl.SSLError, ValueError, UnicodeDecodeError):
                raise KubeconfigError(f"kubeconfig {at}: certificate-authority is not a PEM certificate") from None
    if certificate is not None:
        _load_client_certificate(context, *certificate)
    return context


def _load_client_certificate(context: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    """ssl loads certificates from files only: write them to a private temporary folder, load, delete."""
    with private_files({"cert.pem": cert, "key.pem": key}, "gpupools-verify-") as paths:
        try:
            context.load_cert_chain(paths["cert.pem"], paths["key.pem"])
        except (ssl.SSLError, ValueError):
            raise KubeconfigError(
                "the client certificate and key are not a PEM pair that belong together (contents not shown)"
            ) from None


def _proxy(value: Any, at: str) -> tuple[str, int] | None:
    if not value:
        return None
    try:
        url = urlsplit(str(value))
        port = url.port or 80
    except ValueError:
        url, port = None, 0
    if url is None or url.scheme != "http" or not url.hostname or url.username:
        raise KubeconfigError(f"kubeconfig {at}: proxy-url must be an http:// URL without credentials")
    return url.hostname, port


def _exec_credential(
    spec: Any, at: str, deadline: float, clock: Callable[[], float]
) -> tuple[str, tuple[bytes, bytes] | None]:
    """Run the exec plugin (output bounded, time bounded, stderr discarded: it may hold a token) and read its
    ExecCredential."""
    if not isinstance(spec, dict) or not isinstance(spec.get("command"), str) or not spec["command"]:
        raise KubeconfigError(f"kubeconfig {at}: exec needs a command")
    args = spec.get("args") or []
    env = spec.get("env") or []
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise KubeconfigError(f"kubeconfig {at}: exec.args is not a list of strings")
    if not isinstance(env, list) or not all(
        isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("value"), str)
        for item in env
    ):
        raise KubeconfigError(f"kubeconfig {at}: exec.env is not a list of {{name, value}} strings")
    api_version = str(spec.get("apiVersion") or "client.authentication.k8s.io/v1")
    command = terminal_safe(Path(spec["command"]).name[:100])
    environment = {
        **os.environ,
        **{item["name"]: item["value"] for item in env},
        "KUBERNETES_EXEC_INFO": json.dumps(
            {"apiVersion": api_version, "kind": "ExecCredential", "spec": {"interactive": False}}
        ),
    }
    try:
        process = subprocess.Popen(
            [spec["command"], *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=environment,
        )
    except (OSError, ValueError) as error:
        raise KubeconfigError(
            f"kubeconfig {at}: exec plugin {command!r} cannot run: "
            f"{getattr(error, 'strerror', None) or type(error).__name__}"
        ) from None
    output = _bounded_output(process, command, at, deadline, clock)
    if process.returncode != 0:
        raise KubeconfigError(
            f"kubeconfig {at}: exec plugin {command!r} failed with exit status "
            f"{process.returncode} (its output is not shown: it may hold credentials; run it "
            "yourself to see why)"
        )
    try:
        status = strict_loads(output)["status"]
        token = status.get("token") or ""
        cert, key = status.get("clientCertificateData"), status.get("clientKeyData")
        if not isinstance(token, str) or not (token or (isinstance(cert, str) and isinstance(key, str))):
            raise TypeError
    except (JsonRefused, KeyError, TypeError, AttributeError):
        raise KubeconfigError(
            f"kubeconfig {at}: exec plugin {command!r} did not print an ExecCredential with "
            "status.token or a client certificate (output not shown)"
        ) from None
    return token, None if token else (cert.encode(), key.encode())


def _bounded_output(
    process: subprocess.Popen, command: str, at: str, deadline: float, clock: Callable[[], float]
) -> bytes:
    assert process.stdout is not None
    chunks, size = [], 0
    descriptor = process.stdout.fileno()
    try:
        while True:
            remaining = deadline - clock()
            if remaining <= 0:
                raise KubeconfigError(f"kubeconfig {at}: exec plugin {command!r} did not finish in time")
            ready, _, _ = select.select([descriptor], [], [], min(remaining, 1.0))
            if not ready:
                continue
            chunk = os.read(descriptor, 65536)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_EXEC_OUTPUT_BYTES:
                raise KubeconfigError(
                    f"kubeconfig {at}: exec plugin {command!r} printed more than {MAX_EXEC_OUTPUT_BYTES} bytes"
                )
            chunks.append(chunk)
        process.wait(timeout=max(0.1, deadline - clock()))
    except subprocess.TimeoutExpired:
        raise KubeconfigError(f"kubeconfig {at}: exec plugin {command!r} did not finish in time") from None
    finally:
        if process.returncode is None:
            process.kill()
            process.wait()
        process.stdout.close()
    return b"".join(chunks)
