"""docs/kueue.md's example runs, and each object it shows is one the code prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import yaml

DOC = Path(__file__).resolve().parents[2] / "docs" / "kueue.md"


def test_the_docs_example_prints_the_objects_it_shows():
    text = DOC.read_text()
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    unmarked = re.sub(r"<!-- kueue:[a-z]+ -->\n```yaml\n.*?```", "", text, flags=re.S)  # test_kueue_docs's
    shown = [d for block in re.findall(r"```yaml\n(.*?)```", unmarked, re.S) for d in yaml.safe_load_all(block) if d]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {})
    printed = list(yaml.safe_load_all(out.getvalue()))
    assert len(shown) == 2 and all(d in printed for d in shown)
