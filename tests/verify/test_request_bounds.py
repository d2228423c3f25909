"""verify's per-request bounds are well under ``--timeout`` (issue 25): a silent API server costs a third of the
time left per try, so verify retries within the run instead of spending it all on one request."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gpupools.cli import main
from support.fake_kube_api import FakeKubeApi, aks_node

DEV = str(Path(__file__).resolve().parents[2] / "Pulumi.dev.yaml")
NODES = "/api/v1/nodes"


@pytest.fixture
def api():
    server = FakeKubeApi().start()
    server.nodes = [aks_node("aks-mig1g-31415926-vmss000000", "mig1g", "56")]
    yield server
    server.stop()


def test_a_silent_server_is_asked_again_within_the_timeout(api, tmp_path: Path, capsys, monkeypatch) -> None:
    # A 2 s run with a quarter-second floor per request (the product's floor is 1 s): the same third-of-what-is-left
    # rule as a 4 s run, waited out in half the time.
    monkeypatch.setattr("gpupools.verify.cluster.MIN_REQUEST_SECONDS", 0.25)
    asked: list[float] = []

    def silent(handler) -> None:
        asked.append(time.monotonic())
        api.stopped.wait(30)

    api.raw[NODES] = silent
    started = time.monotonic()
    status = main(
        ["verify", "--config", DEV, "--kubeconfig", str(api.write_kubeconfig(tmp_path / "kc")), "--timeout", "2"]
    )
    err = capsys.readouterr().err
    assert status == 2 and len(err.splitlines()) == 1, err
    assert time.monotonic() - started < 6  # the deadline holds
    assert len(asked) >= 2, asked  # a 20 s read bound would have made it one request
