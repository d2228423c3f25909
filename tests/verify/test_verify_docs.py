"""docs/verify.md shows what ``gpupools verify`` prints against the tests' fake API server (nodes shaped like EKS's):
a MIG layout that turns from pending to success while it waits, and a failed one. The server's port changes per
run, so the page writes ``127.0.0.1:<port>``. Regenerate: ``python -m pytest tests/verify/test_verify_docs.py
--write-docs`` is not a thing; run ``.venv/bin/python tests/verify/test_verify_docs.py --write``."""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "verify.md"
BLOCK = re.compile(r"(<!-- verify:(?P<name>[a-z]+) -->\n```[a-z]*\n)(?P<body>.*?)(```)", re.S)
COMMANDS = (
    "$ pulumi stack output kubeconfig --show-secrets > kubeconfig\n"
    "$ gpupools verify --stack eks --kubeconfig kubeconfig --timeout 900\n"
)


def _run(build, timeout: str) -> str:
    from support.fake_kube_api import FakeKubeApi
    from verify.test_verify import parse, stack

    from gpupools.verify import run_verify

    api = FakeKubeApi().start()
    try:
        build(api)
        out, err = io.StringIO(), io.StringIO()
        with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            kubeconfig = api.write_kubeconfig(Path(folder) / "kubeconfig")
            # A clock that stands still (the wait is the MIG manager's, two looks): "900s left" on any machine.
            args = parse("--kubeconfig", str(kubeconfig), "--timeout", timeout)
            run_verify(stack("eks"), args, poll_interval=0.01, sleep=lambda _: None, clock=lambda: 1000.0)
        return (err.getvalue() + out.getvalue()).replace(api.url.removeprefix("http://"), "127.0.0.1:<port>")
    finally:
        api.stop()


def _generated() -> dict[str, str]:
    from support.fake_kube_api import eks_node
    from verify.test_verify import BALANCED, EKS_NODE, eks_cluster

    def pending_then_success(api) -> None:
        eks_cluster(api, slices={"nvidia.com/mig-1g.5gb": "0"}, mig_state="pending")

        def mig_manager(served: int) -> None:
            if served == 1:  # the second look finds the layout applied
                api.nodes = [eks_node(EKS_NODE, "p4d-balanced", BALANCED, "success")]

        api.before_node_list = mig_manager

    def failed(api) -> None:
        eks_cluster(api, slices={**BALANCED, "nvidia.com/mig-1g.5gb": "14"}, mig_state="failed")

    return {"waiting": COMMANDS + _run(pending_then_success, "900"), "mismatch": _run(failed, "0")}


def _in_doc() -> dict[str, str]:
    return {match["name"]: match["body"] for match in BLOCK.finditer(DOC.read_text(encoding="utf-8"))}


def test_the_docs_show_what_verify_prints():
    assert _in_doc() == _generated(), (
        "docs/verify.md is stale: .venv/bin/python tests/verify/test_verify_docs.py --write"
    )


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    sys.path[:] = [str(ROOT / "components"), str(ROOT / "tests")] + [
        entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent
    ]
    os.environ.setdefault("GPUPOOLS_PRICE_CACHE", str(ROOT / "tests" / "no-price-cache.json"))
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1795564800")
    blocks = _generated()
    DOC.write_text(BLOCK.sub(lambda m: m.group(1) + blocks[m["name"]] + m.group(4), DOC.read_text()))
