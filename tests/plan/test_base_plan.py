"""``plan --base FILE`` reads the base plan as untrusted input: schema, size and depth limits, errors naming --base.

Each bad base must be ``error: --base <file>: ...`` lines and exit 2, before the head is planned, never an
internal error; what a bad value holds is cut and escaped like any config error.
"""

from __future__ import annotations

import json

import pytest

from gpupools.cli import main

POOL = {"pool": "mig1g", "size": "Standard_ND96asr_v4", "nodes": 1, "gpusPerNode": 8, "total": {"nvidia.com/gpu": 56}}


def base_with(**changes) -> dict:
    return {"stack": "base", "capacity": [{**POOL, **changes}], "resources": [], "outputs": {}}


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def errors(capsys, tmp_path, content: str | bytes) -> list[str]:
    base = tmp_path / "base.json"
    base.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["plan", "--stack", "dev", "--base", str(base)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith(f"error: --base {base}: ") for line in lines), lines
    assert not any("internal error" in line for line in lines)
    return lines


@pytest.mark.parametrize(
    "content, expected",
    [
        (json.dumps(base_with(nodes="many")), "capacity[0].nodes: Input should be a valid integer"),
        (json.dumps(base_with(nodes=True)), "capacity[0].nodes: Input should be a valid integer"),
        (json.dumps(base_with(nodes=1.5)), "capacity[0].nodes: Input should be a valid integer"),
        (json.dumps(base_with(nodes=-1)), "capacity[0].nodes: Input should be greater than or equal to 0"),
        (json.dumps(base_with(total=[56])), "capacity[0].total: Input should be a valid dictionary"),
        (json.dumps(base_with(total={"nvidia.com/gpu": "56"})), "capacity[0].total.nvidia.com/gpu"),
        (json.dumps(base_with()).replace("56", "NaN"), "NaN is not a JSON number"),
        (json.dumps(base_with()).replace("56", "Infinity"), "Infinity is not a JSON number"),
        (json.dumps(base_with()).replace("56", "9" * 5000), "a number of 5000 digits"),
        (json.dumps({"capacity": {"pool": "x"}}), "capacity: Input should be a valid list"),
        (json.dumps({**base_with(), "resources": {"a": 1}}), "resources: Input should be a valid list"),
        (json.dumps({**base_with(), "resources": ["x"]}), "resources[0]: Input should be a valid dictionary"),
        (json.dumps({**base_with(), "resources": [{"type": "t", "inputs": []}]}), "resources[0].inputs"),
        ('{"capacity": [' * 10_000 + "]}" * 10_000, "nests deeper than 64 levels"),
        (json.dumps({**base_with(), "x": nested(70)}), "nests deeper than 64 levels"),
        ("[1, 2]", "the document: Input should be a valid dictionary"),
        # The cost diff reads the base's cost too: a price that is not a number, a list, a currency that is not a code.
        (
            json.dumps({**base_with(), "cost": {"pools": [{"pool": "mig1g", "monthly": "lots"}]}}),
            "cost.pools[0].monthly: Input should be a valid number",
        ),
        (
            json.dumps({**base_with(), "cost": {"pools": [{"pool": "mig1g", "sliceHourly": {"nvidia.com/gpu": [1]}}]}}),
            "cost.pools[0].sliceHourly.nvidia.com/gpu: Input should be a valid number",
        ),
        (
            json.dumps({**base_with(), "cost": {"pools": [{"pool": "mig1g", "hourly": -1}]}}),
            "cost.pools[0].hourly: Input should be greater than or equal to 0",
        ),
        (
            json.dumps({**base_with(), "cost": {"currency": "\u001b[31mEUR", "pools": []}}),
            "cost.currency: String should match pattern",
        ),
        (json.dumps({**base_with(), "cost": "nope"}), "cost: Input should be a valid dictionary"),
        (b"\xff\xfe{}", "UTF-16"),
    ],
)
def test_a_wrongly_typed_base_is_refused_naming_the_field(capsys, tmp_path, content, expected):
    lines = errors(capsys, tmp_path, content)
    assert any(expected in line for line in lines), lines


def test_a_huge_pool_name_is_not_echoed(capsys, tmp_path):
    [line] = errors(capsys, tmp_path, json.dumps(base_with(pool="p" * 900_000)))
    assert "capacity[0].pool: String should have at most 253 characters" in line and len(line) < 300


def test_a_missing_base_names_the_flag_and_the_file(capsys, tmp_path):
    base = tmp_path / "nope.json"
    assert main(["plan", "--stack", "dev", "--base", str(base)]) == 2
    assert capsys.readouterr().err == f"error: --base {base}: no such base plan\n"


def test_a_base_bigger_than_a_stack_file_is_refused(capsys, tmp_path):
    [line] = errors(capsys, tmp_path, json.dumps({**base_with(), "padding": "x" * (1 << 20)}))
    assert "the limit for a base plan is 1048576 bytes (1 MiB)" in line


def test_control_characters_in_the_base_are_escaped(capsys, tmp_path):
    content = json.dumps(base_with()).replace('"nodes"', '"no\\u001b[2Jdes"', 1)
    content = content.replace('"gpusPerNode": 8', '"gpusPerNode": "\\u202e8"')
    lines = errors(capsys, tmp_path, content)
    assert all("\x1b" not in line and "\u202e" not in line for line in lines)


def test_a_checked_base_still_diffs(capsys, tmp_path):
    base = tmp_path / "base.json"
    base.write_text(json.dumps(base_with(nodes=2)))
    assert main(["plan", "--stack", "dev", "--base", str(base)]) == 0
    assert "pool mig1g: changed; nodes 2 → 1, GPUs 16 → 8" in capsys.readouterr().out


def test_a_base_with_a_null_cost_is_a_plan_made_without_prices_not_a_free_one(capsys, tmp_path):
    """``"cost": null`` must not read as "every pool cost 0 before" (which would say the head adds its whole price)."""
    base = tmp_path / "base.json"
    base.write_text(json.dumps({**base_with(), "cost": None}))
    assert main(["plan", "--stack", "dev", "--base", str(base)]) == 0
    assert (
        capsys.readouterr()
        .out.splitlines()[0]
        .endswith("cost change unknown (no price for base plan (made without prices))")
    )


def test_a_base_pool_with_a_month_but_no_hour_is_unknown(capsys, tmp_path):
    """Both figures or neither: the surge overlap adds the base's hourly price, which this base does not give."""
    base = tmp_path / "base.json"
    base.write_text(json.dumps({**base_with(), "cost": {"pools": [{"pool": "mig1g", "monthly": 100.0}]}}))
    assert main(["plan", "--stack", "dev", "--base", str(base)]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("cost change unknown (no price for mig1g)")
