"""Each chart variant prints its base stack's output (pinned whole in ``tests/golden/``) changed only where the
variant changes the stack: the difference is a syrupy snapshot (``__snapshots__/``), so a change of output shows
as one small diff per variant. Rewrite it after an intended change with ``--snapshot-update`` and read the diff.

The snapshot is the difference, rebuilt here into the variant's bytes: snapshot and base golden file together
pin what the variant prints, byte for byte, as a whole golden file per variant did.
"""

from __future__ import annotations

import json

import pytest

from support.golden import CASES, VARIANT_CASES, Case, outputs
from support.output_diff import apply_json_diff, apply_text_diff, json_diff, render_json_diff, text_diff

BASES = {case.name: case for case in CASES}


def _normalised(case: Case, data: bytes) -> tuple[str, int]:
    """The variant's text with its stack name (the variant id) spelled as its base stack's, and how often."""
    text = data.decode("utf-8")
    return text.replace(case.name, case.variant.stack), text.count(case.name)


@pytest.mark.parametrize("case", VARIANT_CASES, ids=[case.name for case in VARIANT_CASES])
def test_variant_output_is_its_stack_output_changed_as_snapshotted(case, snapshot):
    base, head = outputs(BASES[case.variant.stack]), outputs(case)
    changes = {}
    for output in head:
        old, (new, mentions) = base[output].decode("utf-8"), _normalised(case, head[output])
        if output.endswith(".json"):
            assert new == json.dumps(json.loads(new), indent=2) + "\n", f"{output}: not printed as indented JSON"
            ops = json_diff(json.loads(old), json.loads(new))
            assert json.dumps(apply_json_diff(json.loads(old), ops), indent=2) + "\n" == new
            changes[output] = f"stack name printed {mentions} times\n{render_json_diff(ops)}"
        else:
            lines = text_diff(old, new)
            assert apply_text_diff(old, lines) == new
            changes[output] = f"stack name printed {mentions} times\n{''.join(lines)}"
    assert changes == snapshot
