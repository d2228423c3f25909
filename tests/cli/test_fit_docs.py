"""docs/fit.md shows ``examples/demand.yaml`` and the real answer of ``gpupools fit`` to it (text, and the stack
part of ``--json`` as YAML), and day two: a running stack and the real answer of ``fit --config`` on it. Regenerate
after a change on purpose: ``python tests/cli/test_fit_docs.py --write``."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "fit.md"
EXAMPLE = ROOT / "examples" / "demand.yaml"
# Day two's running stack: one p4de node cut all-1g.10gb, shown in the docs as it is written here.
DAY_TWO_STACK = """\
config:
  aws:region: us-east-1
  gpupools:cloud: aws
  gpupools:cluster: {name: day, region: us-east-1, systemPool: {size: m6i.large}}
  gpupools:gpuSoftware: {installer: gpu-operator, migStrategy: mixed}
  gpupools:gpuPools:
    - {name: infer, size: p4de.24xlarge, count: 1, mig: {layout: all-1g.10gb}}
"""
BLOCK = re.compile(r"(<!-- fit:(?P<name>[a-z]+) -->\n```[a-z]*\n)(?P<body>.*?)(```)", re.S)


def _generated() -> dict[str, str]:
    sys.path[:0] = [str(ROOT / "components"), str(ROOT / "tests")]
    from support.cli import run_cli

    text, data = run_cli("fit", str(EXAMPLE)), run_cli("fit", str(EXAMPLE), "--json")
    assert text.code == data.code == 0, text.err + data.err
    stack = json.loads(data.out)["stack"]
    with tempfile.TemporaryDirectory() as folder:
        stack_file = Path(folder) / "Pulumi.day.yaml"
        stack_file.write_text(DAY_TWO_STACK)
        day_two = run_cli("fit", str(EXAMPLE), "--config", str(stack_file))
    assert day_two.code == 0, day_two.err
    return {
        "daystack": DAY_TWO_STACK,
        "daytwo": day_two.out,
        "demand": EXAMPLE.read_text(),
        "answer": text.out,
        "stack": yaml.safe_dump(
            {"gpupools:gpuPools": stack["gpuPools"], "gpupools:gpuSoftware": stack["gpuSoftware"]}, sort_keys=False
        ),
    }


def _in_doc() -> dict[str, str]:
    return {match["name"]: match["body"] for match in BLOCK.finditer(DOC.read_text())}


def test_the_docs_show_the_real_answer():
    assert _in_doc() == _generated(), "docs/fit.md is stale: python tests/cli/test_fit_docs.py --write"


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    os.environ.setdefault("GPUPOOLS_PRICE_CACHE", str(ROOT / "tests" / "no-price-cache.json"))
    blocks = _generated()
    DOC.write_text(BLOCK.sub(lambda m: m.group(1) + blocks[m["name"]] + m.group(4), DOC.read_text()))
