"""docs/kueue.md shows the real output of ``gpupools fit DEMAND --kueue`` for the demand it shows: stdout (the
objects) and the Configuration stanza the report on stderr ends with. Regenerate after a change on purpose:
``python tests/kueue/test_kueue_docs.py --write``."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "kueue.md"
BLOCK = re.compile(r"(<!-- kueue:(?P<name>[a-z]+) -->\n```[a-z]*\n)(?P<body>.*?)(```)", re.S)
STANZA = "apiVersion: config.kueue.x-k8s.io/"


def _in_doc() -> dict[str, str]:
    return {match["name"]: match["body"] for match in BLOCK.finditer(DOC.read_text())}


def _generated() -> dict[str, str]:
    sys.path[:0] = [str(ROOT / "components"), str(ROOT / "tests")]
    from support.cli import run_cli

    demand = _in_doc()["demand"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "demand.yaml"
        path.write_text(demand)
        run = run_cli("fit", str(path), "--kueue")
    assert run.code == 0, run.err
    stanza = run.err[run.err.index(STANZA) :]
    return {"demand": demand, "objects": run.out, "configuration": stanza}


def test_the_docs_show_the_real_output():
    assert _in_doc() == _generated(), "docs/kueue.md is stale: python tests/kueue/test_kueue_docs.py --write"


def test_the_docs_example_has_an_idle_pool_both_queues_borrow_from():
    import yaml

    objects = list(yaml.safe_load_all(_in_doc()["objects"]))
    flavors = [o["metadata"]["name"] for o in objects if o["kind"] == "ResourceFlavor"]
    queues = [o for o in objects if o["kind"] == "ClusterQueue"]
    assert len(flavors) >= 2 and {q["metadata"]["name"] for q in queues} == {"chat", "research", "default"}
    for queue in queues:
        assert sorted(f["name"] for g in queue["spec"]["resourceGroups"] for f in g["flavors"]) == sorted(flavors)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    os.environ.setdefault("GPUPOOLS_PRICE_CACHE", str(ROOT / "tests" / "no-price-cache.json"))
    os.environ.setdefault("GPUPOOLS_OFFERS_CACHE", str(ROOT / "tests" / "no-offers-cache.json"))
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1795564800")
    blocks = _generated()
    DOC.write_text(BLOCK.sub(lambda m: m.group(1) + blocks[m["name"]] + m.group(4), DOC.read_text()))
