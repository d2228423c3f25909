"""``gpupools verify`` against a broken or hostile API server and kubeconfig: no crash, hang, flood or leak.

Each case runs the real command line (``gpupools.cli.main``) against the local fake server and is bounded in
time by an alarm, so a regression fails instead of hanging the suite. Every failure must be exit 2 with one
``error:`` line, never ``internal error``; nothing the server sends may reach the terminal unescaped, and no
credential from the kubeconfig may be printed.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from support.fake_kube_api import FakeKubeApi, aks_node, daemonset, daemonset_pod, kubeconfig_for
from gpupools.cli import main

REPO_ROOT = Path(__file__).resolve().parents[2]
DEV = str(REPO_ROOT / "Pulumi.dev.yaml")
NODE = "aks-mig1g-31415926-vmss000000"
DP_NS = "nvidia-device-plugin"
DP_LABELS = {"app.kubernetes.io/name": "nvidia-device-plugin", "app.kubernetes.io/instance": "nvidia-device-plugin"}
NODES = "/api/v1/nodes"
SECRET = "s3cr3t-t0ken-0123456789abcdef"
CASE_SECONDS = 20


@pytest.fixture(autouse=True)
def bounded():
    """Every case ends within CASE_SECONDS: the alarm interrupts any blocking call in the main thread."""

    def expire(signum, frame):
        raise TimeoutError(f"verify case still running after {CASE_SECONDS}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def api():
    server = FakeKubeApi().start()
    cluster(server)
    yield server
    server.stop()


@pytest.fixture
def fast(monkeypatch):
    """Short request timeouts and retry delays, so a silent server costs a second, not twenty."""
    monkeypatch.setattr("gpupools.verify.cluster.CONNECT_TIMEOUT", 0.5)
    monkeypatch.setattr("gpupools.verify.cluster.READ_TIMEOUT", 0.5)
    monkeypatch.setattr("gpupools.verify.cluster.FIRST_RETRY_DELAY", 0.05)


def cluster(api: FakeKubeApi, name: str = NODE, gpus: str = "56") -> None:
    api.nodes = [aks_node(name, "mig1g", gpus)]
    api.daemonsets[DP_NS] = [daemonset(DP_NS, "nvidia-device-plugin", DP_LABELS, DP_LABELS)]
    api.pods[DP_NS] = [daemonset_pod(DP_NS, "nvidia-device-plugin", name, DP_LABELS)]


def run(capsys, kubeconfig: Path, *argv: str) -> tuple[int, str, str]:
    status = main(["verify", "--config", DEV, "--kubeconfig", str(kubeconfig), *argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_error(status: int, err: str) -> str:
    assert status == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


def kubeconfig(tmp_path: Path, server: str, user: str = "{}") -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(kubeconfig_for(server).replace("user: {}", f"user: {user}"), encoding="utf-8")
    return path


# JSON of the wrong shape: one error naming the object and field


def node_list(*items) -> dict:
    return {"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": list(items)}


def bad_node(**changes) -> dict:
    node = aks_node(NODE, "mig1g", "56")
    for path, value in changes.items():
        target = node
        *parents, last = path.split("__")
        for part in parents:
            target = target[part]
        if value is ...:
            del target[last]
        else:
            target[last] = value
    return node


WRONG_SHAPES = {
    "a list where the list object belongs": ([node_list()], "Input should be a valid dictionary"),
    "items as a string": ({"items": "many"}, "items: Input should be a valid list"),
    "a node without metadata": (node_list(bad_node(metadata=...)), "items[0].metadata: Field required"),
    "a node without a name": (node_list(bad_node(metadata__name=...)), "items[0].metadata.name: Field required"),
    "labels as a list": (node_list(bad_node(metadata__labels=["a"])), f"items[0] (node '{NODE}').metadata.labels"),
    "allocatable as a list": (node_list(bad_node(status__allocatable=["1"])), "status.allocatable"),
    "a quantity NaN": (node_list(bad_node(status__allocatable={"nvidia.com/gpu": "NaN"})), "'NaN' is not a"),
    "a quantity Infinity": (node_list(bad_node(status__allocatable={"nvidia.com/gpu": "Infinity"})), "Infinity"),
    "a quantity 1e999999999": (node_list(bad_node(status__allocatable={"nvidia.com/gpu": "1e999999999"})), "exponent"),
    "a 5,000-digit quantity": (
        node_list(bad_node(status__allocatable={"nvidia.com/gpu": "9" * 5000})),
        "at most 316 characters",
    ),
    "a quantity as a number": (node_list(bad_node(status__allocatable={"nvidia.com/gpu": 56})), "valid string"),
    "a fractional device count": (node_list(bad_node(status__allocatable={"nvidia.com/gpu": "1.5"})), "whole"),
    "a 1 MB node name": (node_list(bad_node(metadata__name="n" * 1_000_000)), "at most 253 characters"),
    "more items than the limit": (
        {"items": [{"metadata": {"name": f"n{i}"}} for i in range(5001)]},
        "at most 5000 items",
    ),
}


@pytest.mark.parametrize("case", WRONG_SHAPES, ids=list(WRONG_SHAPES))
def test_wrong_shape_is_one_error_naming_the_field(api, tmp_path, capsys, case):
    document, expected = WRONG_SHAPES[case]
    api.documents[NODES] = document
    line = one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"))[::2])
    assert expected in line and "GET /api/v1/nodes" in line
    assert len(line) <= 1100


@pytest.mark.parametrize(
    "path, document, expected",
    [
        (
            "/apis/apps/v1/namespaces/nvidia-device-plugin/daemonsets",
            {"items": [{"metadata": "ds"}]},
            "items[0].metadata",
        ),
        (
            "/api/v1/namespaces/nvidia-device-plugin/pods",
            {"items": [{"metadata": {"name": "p", "ownerReferences": "DaemonSet"}}]},
            "ownerReferences",
        ),
        (
            "/api/v1/namespaces/nvidia-device-plugin/pods",
            {"items": [{"metadata": {"name": "p"}, "status": {"conditions": {"type": "Ready"}}}]},
            "status.conditions",
        ),
        ("/version", ["v1.33"], "Input should be a valid dictionary"),
    ],
)
def test_malformed_daemonsets_pods_and_version(api, tmp_path, capsys, path, document, expected):
    api.documents[path] = document
    line = one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"))[::2])
    assert expected in line


def raw_body(body: bytes, status: str = "200 OK", headers: dict[str, str] | None = None):
    def write(handler) -> None:
        handler.wfile.write(f"HTTP/1.1 {status}\r\n".encode("latin-1"))
        for name, value in {
            "Content-Type": "application/json",
            "Content-Length": str(len(body)),
            **(headers or {}),
        }.items():
            handler.wfile.write(f"{name}: {value}\r\n".encode("latin-1"))
        handler.wfile.write(b"\r\n" + body)

    return write


@pytest.mark.parametrize(
    "body, expected",
    [
        (b'{"items": [], "metadata": {"x": NaN}}', "not JSON"),
        (b'{"items": [], "x": ' + b"1" * 5000 + b"}", "not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"<html>", "not JSON"),
    ],
)
def test_response_that_is_not_json(api, tmp_path, capsys, body, expected):
    api.raw[NODES] = raw_body(body)
    assert expected in one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"))[::2])


# Hangs and floods: timeouts, a deadline, a bound on paging and on the body


def test_server_that_never_answers_is_bounded_by_timeout(api, tmp_path, capsys, fast):
    api.raw[NODES] = lambda handler: api.stopped.wait(60)
    started = time.monotonic()
    line = one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"), "--timeout", "0.75")[::2])
    assert time.monotonic() - started < 3.25
    assert "cannot reach the cluster" in line or "ran out" in line


def test_slow_drip_body_ends_at_the_deadline(api, tmp_path, capsys, fast):
    def drip(handler) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
        while not api.stopped.wait(0.1):  # one byte every 0.1 s: each read is well within the read timeout
            handler.wfile.write(b" ")
            handler.wfile.flush()

    api.raw[NODES] = drip
    started = time.monotonic()
    one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"), "--timeout", "0.75")[::2])
    assert time.monotonic() - started < 3.25


def test_endless_continue_tokens_are_bounded(api, tmp_path, capsys):
    pages = iter(range(10**6))
    api.raw[NODES] = lambda handler: raw_body(
        json.dumps({"metadata": {"continue": f"token-{next(pages)}"}, "items": []}).encode()
    )(handler)
    line = one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"))[::2])
    assert "pages" in line and api.requests.count(NODES) <= 11


def test_repeated_continue_token_is_refused(api, tmp_path, capsys):
    api.documents[NODES] = {"metadata": {"continue": "again"}, "items": []}
    assert "same continue token" in one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"))[::2])
    assert api.requests.count(NODES) == 2


def test_gzip_bomb_is_refused_at_the_body_limit(api, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("gpupools.verify.transport.MAX_BODY_BYTES", 1 << 20)
    bomb = gzip.compress(b" " * (50 << 20), compresslevel=9)  # 50 MB of spaces in about 50 KB
    api.raw[NODES] = raw_body(bomb, headers={"Content-Encoding": "gzip"})
    assert "larger than 1 MiB" in one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"))[::2])


def test_gzip_body_within_the_limit_is_read(api, tmp_path, capsys):
    api.raw[NODES] = raw_body(
        gzip.compress(json.dumps(node_list(aks_node(NODE, "mig1g", "56"))).encode()),
        headers={"Content-Encoding": "gzip"},
    )
    status, out, err = run(capsys, api.write_kubeconfig(tmp_path / "kc"))
    assert status == 0, err
    assert f"{NODE}: 56x nvidia.com/gpu" in out


def test_kubeconfig_alias_bomb_is_refused_quickly(tmp_path, capsys):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(9)
    )
    path = tmp_path / "kubeconfig"
    path.write_text(bomb, encoding="utf-8")
    started = time.monotonic()
    line = one_error(*run(capsys, path)[::2])
    assert time.monotonic() - started < 2 and "kubeconfig" in line


# Terminal and Markdown injection


def test_server_text_reaches_the_terminal_escaped(api, tmp_path, capsys):
    evil = "n\x1b[2J\u202eevil"
    api.nodes = [aks_node(evil, "mig1g", "56", extra_labels={"nvidia.com/mig.config.state": "x\x1b]0;t\x07"})]
    api.version["gitVersion"] = "v1.33\x1b[31m"
    status, out, err = run(capsys, api.write_kubeconfig(tmp_path / "kc"))
    assert status == 3  # the documented mismatch status
    for text in (out, err):
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert "n\\x1b[2J\\u202eevil" in out


def test_http_reason_is_escaped(api, tmp_path, capsys):
    api.raw["/version"] = raw_body(b"{}", status="500 Oops\x1b[2J")
    line = one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"))[::2])
    assert "\x1b" not in line and "500 Oops\\x1b[2J" in line


def test_markdown_cells_are_escaped(api, tmp_path, capsys):
    evil = "a|b</details><img src=x onerror=alert(1)>[link](http://x)`c`"
    cluster(api, name=evil)
    status, out, _ = run(capsys, api.write_kubeconfig(tmp_path / "kc"), "--format", "markdown")
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("| mig1g"))
    assert "</details>" not in out and "<img" not in out and "`c`" not in out
    assert not re.search(r"(?<!\\)\]\(", out)  # no link syntax: the bracket is escaped
    # Seven unescaped pipes: the six-column row still has six columns.
    assert row.replace("\\|", "").count("|") == 7


# Credentials are never printed


def test_user_info_in_the_server_url_is_used_but_never_shown(api, tmp_path, capsys):
    host = api.url.removeprefix("http://")
    status, out, err = run(capsys, kubeconfig(tmp_path, f"http://admin:{SECRET}@{host}"))
    assert status == 0, err
    assert SECRET not in out + err and "admin" not in out + err
    assert out.startswith(f"stack dev: cluster {api.url} ")
    expected = "Basic " + base64.b64encode(f"admin:{SECRET}".encode()).decode()
    assert api.headers[0].get("Authorization") == expected


def test_token_with_a_line_break_is_refused_without_echo(api, tmp_path, capsys):
    line = one_error(*run(capsys, kubeconfig(tmp_path, api.url, '{token: "' + SECRET + '\\r\\nX-Evil: 1"}'))[::2])
    assert SECRET not in line and "token" in line and api.requests == []


def test_token_is_sent_as_a_bearer_header(api, tmp_path, capsys):
    status, out, err = run(capsys, kubeconfig(tmp_path, api.url, "{token: " + SECRET + "}"))
    assert status == 0 and SECRET not in out + err
    assert api.headers[0]["Authorization"] == f"Bearer {SECRET}"


def exec_user(tmp_path: Path, script: str) -> str:
    plugin = tmp_path / "plugin.py"
    plugin.write_text(script, encoding="utf-8")
    return (
        '{exec: {apiVersion: client.authentication.k8s.io/v1, command: "'
        + sys.executable
        + '", args: ["'
        + str(plugin)
        + '", "--password='
        + SECRET
        + '"]}}'
    )


def test_failing_exec_plugin_output_is_never_shown(api, tmp_path, capsys):
    script = f"import sys\nsys.stderr.write('token {SECRET} \\x1b[2J')\nprint('{SECRET}')\nsys.exit(3)\n"
    status, out, err = run(capsys, kubeconfig(tmp_path, api.url, exec_user(tmp_path, script)))
    line = one_error(status, err)
    assert SECRET not in out + err and "\x1b" not in out + err
    assert "exit status 3" in line and api.requests == []


def test_exec_plugin_token_is_used(api, tmp_path, capsys):
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "status": {"token": SECRET},
    }
    script = f"import json, os\nassert 'KUBERNETES_EXEC_INFO' in os.environ\nprint(json.dumps({credential!r}))\n"
    status, out, err = run(capsys, kubeconfig(tmp_path, api.url, exec_user(tmp_path, script)))
    assert status == 0, err
    assert SECRET not in out + err and api.headers[0]["Authorization"] == f"Bearer {SECRET}"


def test_exec_plugin_that_hangs_is_bounded(api, tmp_path, capsys):
    script = "import time\ntime.sleep(60)\n"
    started = time.monotonic()
    line = one_error(*run(capsys, kubeconfig(tmp_path, api.url, exec_user(tmp_path, script)), "--timeout", "1")[::2])
    assert time.monotonic() - started < 4 and "did not finish in time" in line


def test_token_file_that_is_a_device_is_refused(api, tmp_path, capsys):
    started = time.monotonic()
    line = one_error(*run(capsys, kubeconfig(tmp_path, api.url, "{tokenFile: /dev/zero}"))[::2])
    assert time.monotonic() - started < 2 and "tokenFile" in line and "device" in line


def test_kubeconfig_that_is_a_fifo_names_the_kubeconfig(tmp_path, capsys):
    import os

    fifo = tmp_path / "kc"
    os.mkfifo(fifo)
    line = one_error(*run(capsys, fifo)[::2])
    assert "a kubeconfig must be a regular file" in line


# Transient failures are retried within --timeout; --json also prints a JSON error


def test_5xx_is_retried_within_the_timeout(api, tmp_path, capsys, fast):
    api.failures = [503, 500]
    status, out, err = run(capsys, api.write_kubeconfig(tmp_path / "kc"), "--timeout", "5")
    assert status == 0, err
    assert api.requests.count("/version") == 3


def test_5xx_without_timeout_is_not_retried(api, tmp_path, capsys):
    api.failures = [503]
    line = one_error(*run(capsys, api.write_kubeconfig(tmp_path / "kc"))[::2])
    assert "503" in line and api.requests == ["/version"]


def test_refused_connection_is_retried_until_the_timeout(tmp_path, capsys, fast):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    started = time.monotonic()
    line = one_error(*run(capsys, kubeconfig(tmp_path, f"http://127.0.0.1:{port}"), "--timeout", "1")[::2])
    assert 0.5 <= time.monotonic() - started < 3
    assert "Connection refused" in line


def test_json_output_has_a_json_error_object(api, tmp_path, capsys):
    api.forbidden.add(NODES)
    status, out, err = run(capsys, api.write_kubeconfig(tmp_path / "kc"), "--json")
    line = one_error(status, err)
    assert json.loads(out) == {"stack": "dev", "ok": False, "error": line.removeprefix("error: ")}
