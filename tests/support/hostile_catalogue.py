"""The hostile catalogue of issue 25, as data: every way in, each case a command line and the files, environment and
server it meets, and what a clean ending is (exit 0 or 2, one clear line per problem, no raw control character, no
user file changed).

``tests/cli/test_hostile_catalogue.py`` runs it in-process through ``gpupools.cli.main`` (what that can show
faithfully); ``benchmarks/hostile.py`` runs every case as ``python -m gpupools`` in a subprocess of its own, with its
time and peak RSS. Servers are local: a hostile HTTPS proxy (``HTTPS_PROXY``) that refuses, mangles or, with a
certificate the run trusts through ``SSL_CERT_FILE``, answers the price lists itself; the fake Kubernetes API for
``verify``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "price_lists" / "recorded_prices"
HOSTS = ("prices.azure.com", "pricing.us-east-1.amazonaws.com")
Answer = Callable[[socket.socket, str], None]  # (TLS socket, request path) -> writes an answer


@dataclass
class Case:
    """One hostile case: ``argv`` for ``gpupools`` (``{dir}`` is the case's folder), ``prepare`` builds its files
    there and returns extra environment, ``proxy`` serves HTTPS_PROXY (raw client socket after CONNECT's head)."""

    name: str
    group: str
    argv: list[str]
    prepare: Callable[[Path], dict[str, str]] = lambda where: {}
    proxy: Callable[[socket.socket], None] | None = None
    codes: frozenset[int] = frozenset({0, 2})
    may_change: tuple[str, ...] = ()  # files (relative to the case folder) the command may write
    slow: bool = False  # bounded by a timeout of many seconds: in the benchmark, not in the suite
    pipe: bool = False  # stdout closed after the first line, as ``| head -1``
    says: str = ""  # a text stderr must hold (the field or the file it names)
    kube: Callable[[Any], None] | None = None  # sets up the fake Kubernetes API (support.fake_kube_api) for verify


@dataclass
class Outcome:
    code: int
    out: bytes
    err: bytes
    seconds: float = 0.0
    rss_mib: float = 0.0
    changed: list[str] = field(default_factory=list)


# --- what a clean ending is ---------------------------------------------------------------------------------------

MAX_LINE = 2000


def problems_of(case: Case, outcome: Outcome) -> list[str]:
    """Why ``outcome`` is not a clean ending of ``case`` (empty: it is)."""
    found = []
    codes = case.codes | ({141} if case.pipe else set())
    if outcome.code not in codes:
        found.append(f"exit {outcome.code}, not one of {sorted(codes)}")
    for stream, data in (("stdout", outcome.out), ("stderr", outcome.err)):
        raw = sorted({byte for byte in data if byte < 0x20 and byte not in (0x0A, 0x09)} | ({0x7F} & set(data)))
        if raw:
            found.append(f"{stream} holds raw control bytes {[hex(b) for b in raw]}")
        text = data.decode("utf-8", "replace")
        if any(0x80 <= ord(char) <= 0x9F for char in text):
            found.append(f"{stream} holds a C1 control character")
        if any(len(line) > MAX_LINE for line in text.splitlines()):
            found.append(f"{stream} has a line over {MAX_LINE} characters")
    err = outcome.err.decode("utf-8", "replace")
    for bad in ("internal error", "Traceback (most recent call last)", "a gpupools bug"):
        if bad in err:
            found.append(f"stderr says {bad!r}")
    if outcome.code == 2 and not any(line.startswith(("error", "gpupools")) for line in err.splitlines()):
        found.append("exit 2 without an error line")
    if outcome.code == 2 and case.says and case.says not in err:
        found.append(f"stderr does not name {case.says!r}")
    if outcome.changed:
        found.append(f"changed {outcome.changed}")
    return found


def snapshot(where: Path) -> dict[str, str]:
    """Each file under ``where`` by its content hash and mode (one over 16 MB by size, time and mode), links by
    target, FIFOs and devices by kind (never opened). Held small: a subprocess forked from a large parent would
    count the parent's memory in its own peak RSS."""
    seen = {}
    for path in sorted(where.rglob("*")):
        rel = str(path.relative_to(where))
        if path.is_symlink():
            seen[rel] = f"link->{os.readlink(path)}"
        elif path.is_file() and path.stat().st_size > 16 << 20:  # a sparse 400 MB cache: never read into memory
            info = path.stat()
            seen[rel] = f"{info.st_size}:{info.st_mtime_ns}:{info.st_mode}"
        elif path.is_file():
            seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest() + f":{path.stat().st_mode}"
        elif not path.is_dir():
            seen[rel] = "special"
    return seen


def changed(before: dict[str, str], after: dict[str, str], allowed: tuple[str, ...]) -> list[str]:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k) and k not in allowed)


# --- the hostile HTTPS proxy --------------------------------------------------------------------------------------


def certificate(folder: Path) -> tuple[Path, Path] | None:
    """A self-signed certificate for the price hosts (the run trusts it through SSL_CERT_FILE); None without
    openssl."""
    cert, key = folder / "hosts.pem", folder / "hosts.key"
    if cert.exists():
        return cert, key
    if shutil.which("openssl") is None:
        return None
    names = ",".join(f"DNS:{host}" for host in HOSTS)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert)]
        + ["-days", "2", "-subj", "/CN=gpupools-hostile", "-addext", f"subjectAltName={names}"],
        check=True,
        capture_output=True,
    )
    return cert, key


class HostileProxy:
    """An HTTP proxy on 127.0.0.1 that hands every connection, after reading the CONNECT head, to ``handle``."""

    def __init__(self, handle: Callable[[socket.socket], None]) -> None:
        self.handle = handle
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def __enter__(self) -> "HostileProxy":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        try:  # wakes the accept() waiting in _serve now, not at its next timeout (0.2 s per case)
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        self.thread.join(5)

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(30)
            try:
                _read_head(conn)
                self.handle(conn)
            except (OSError, ssl.SSLError):
                pass


def _read_head(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 65536:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def _sent(raw: bytes) -> Callable[[socket.socket], None]:
    return lambda conn: conn.sendall(raw)


def _silent(conn: socket.socket) -> None:
    conn.settimeout(60)
    conn.recv(1)  # until the client gives up


def mitm(answer: Answer, cert: tuple[Path, Path]) -> Callable[[socket.socket], None]:
    """Accept the tunnel, speak TLS as the price host (with ``cert``), read the request, let ``answer`` reply."""

    def handle(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*map(str, cert))
        with context.wrap_socket(conn, server_side=True) as tls:
            head = _read_head(tls).decode("latin-1")
            path = head.split(" ")[1] if head.count(" ") >= 2 else "/"
            answer(tls, path)

    return handle


def ok(body: bytes, *headers: str) -> Answer:
    extra = "".join(f"{h}\r\n" for h in headers)
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nConnection: close\r\n{extra}\r\n".encode()
    return lambda tls, path: tls.sendall(head + body)


def raw(data: bytes) -> Answer:
    return lambda tls, path: tls.sendall(data)


def status(line: str, *headers: str) -> Answer:
    extra = "".join(f"{h}\r\n" for h in headers)
    raw = f"{line}\r\nContent-Length: 0\r\nConnection: close\r\n{extra}\r\n".encode("latin-1")
    return lambda tls, path: tls.sendall(raw)


def flood(megabytes: int) -> Answer:
    def send(tls: socket.socket, path: str) -> None:
        tls.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {megabytes << 20}\r\n\r\n".encode())
        block = b" " * (1 << 20)
        for _ in range(megabytes):
            tls.sendall(block)

    return send


def drip(tls: socket.socket, path: str) -> None:
    import time

    tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{")
    for _ in range(400):
        time.sleep(0.1)
        tls.sendall(b" ")


# --- price bodies ---------------------------------------------------------------------------------------------------


def aws_offer(price: str = "32.7726", region: str = "us-east-1") -> bytes:
    """The recorded offer file with every non-zero hourly price and region code as given (raw text, so NaN and
    5000-digit numbers go on the wire as a hostile server sends them)."""
    document = json.loads((RECORDED / "aws_offer_us-east-1.json").read_text())
    for product in document["products"].values():
        product["attributes"]["regionCode"] = region
    for offers in document["terms"]["OnDemand"].values():
        for offer in offers.values():
            for dimension in offer["priceDimensions"].values():
                if dimension["pricePerUnit"]["USD"] not in ("0.0000000000", "0"):
                    dimension["pricePerUnit"]["USD"] = "@PRICE@"
    return json.dumps(document).encode().replace(b'"@PRICE@"', json.dumps(price).encode())


def aws_offer_number(raw: str) -> bytes:
    """The offer file with each price as a bare JSON number ``raw`` (NaN, 1e309, 5000 digits), not a string."""
    return aws_offer().replace(b'"32.7726"', raw.encode())


def azure_page(change: Callable[[dict], None] = lambda page: None) -> bytes:
    page = json.loads((RECORDED / "azure_page1.json").read_text())
    page["NextPageLink"] = None
    change(page)
    return json.dumps(page).encode()


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


# --- files a case starts from ---------------------------------------------------------------------------------------


def project(where: Path, stack: str = "dev") -> Path:
    """The repository's ``Pulumi.<stack>.yaml`` in the case's project folder (no Pulumi.yaml: packaged program)."""
    folder = where / "project"
    folder.mkdir(exist_ok=True)
    return Path(shutil.copy2(ROOT / f"Pulumi.{stack}.yaml", folder))


def edited_stack(where: Path, change: Callable[[dict], None], stack: str = "dev") -> Path:
    path = project(where, stack)
    document = yaml.safe_load(path.read_text())
    change(document["config"])
    path.write_text(yaml.safe_dump(document))
    return path


def own_program(source: bytes) -> Callable[[Path], dict[str, str]]:
    def prepare(where: Path) -> dict[str, str]:
        project(where)
        (where / "project" / "Pulumi.yaml").write_text("name: own\nruntime: python\nmain: deploy.py\n")
        (where / "project" / "deploy.py").write_bytes(source)
        return {}

    return prepare


def odd_pulumi_yaml(make: Callable[[Path], None]) -> Callable[[Path], dict[str, str]]:
    def prepare(where: Path) -> dict[str, str]:
        project(where)
        make(where / "project" / "Pulumi.yaml")
        return {}

    return prepare


def cache(content: bytes | Callable[[Path], None]) -> Callable[[Path], dict[str, str]]:
    """A price cache at the usual place under XDG_CACHE_HOME, holding ``content`` (or made by it)."""

    def prepare(where: Path) -> dict[str, str]:
        project(where)
        path = where / "cache" / "gpupools" / "prices.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        content(path) if callable(content) else path.write_bytes(content)
        return {}

    return prepare


def cache_at(name: Callable[[Path], str]) -> Callable[[Path], dict[str, str]]:
    def prepare(where: Path) -> dict[str, str]:
        return {"GPUPOOLS_PRICE_CACHE": name(where)}

    return prepare


def good_cache() -> bytes:
    """A cache as refresh writes it, from the recorded offer file (written in a folder removed at once)."""
    import tempfile
    from datetime import datetime, timezone

    from gpupools.price_lists.refresh import refresh_caches

    with tempfile.TemporaryDirectory(prefix="gpupools-hostile-cache-") as folder:
        target = Path(folder) / "prices.json"
        now = datetime(2026, 11, 20, tzinfo=timezone.utc)
        refresh_caches(["aws"], "us-east-1", fetcher=lambda url: aws_offer(), now=now, path=target)
        return target.read_bytes()


def poisoned_cache(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        book = json.loads(good_cache())
        change(book)
        path.write_text(json.dumps(book))

    return make


def base_plan(document: Any) -> Callable[[Path], dict[str, str]]:
    def prepare(where: Path) -> dict[str, str]:
        project(where)
        raw = document if isinstance(document, bytes) else json.dumps(document).encode()
        (where / "project" / "base.json").write_bytes(raw)
        return {}

    return prepare


BASE = {"stack": "base", "capacity": [{"pool": "mig1g", "nodes": 2, "gpusPerNode": 8}], "resources": [], "outputs": {}}
DEVICE = {"kind": "mig", "profile": "1g.10gb", "perNode": 56, "memoryGB": 10}


def gzip_bomb() -> bytes:
    return gzip.compress(b" " * (64 << 20), compresslevel=9)
