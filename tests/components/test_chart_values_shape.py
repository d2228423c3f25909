"""Chart ``values`` are checked for shape before a release registers (issue 25): a dict that holds itself, 5000
levels, a NaN, a non-text key or a Python object is one ComponentArgsError naming where, not a RecursionError."""

from __future__ import annotations

import pytest

from gpupools.component_args import ComponentArgsError, NvidiaChartArgsModel, check_args

CHART = {"version": "0.17.0", "namespace": "nvidia-device-plugin"}


def _deep(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels):
        value = {"a": value}
    return value


def _cyclic() -> dict:
    value: dict = {"x": {}}
    value["x"]["back"] = value
    return value


@pytest.mark.parametrize(
    ("values", "says"),
    [
        (_cyclic(), "nests deeper than 64 levels (or holds itself)"),
        (_deep(5000), "nests deeper than 64 levels"),
        ({"a": [1.0, float("nan")]}, ".a[1]: nan is not a finite number"),
        ({"a": {1: "x"}}, ".a: key 1 is int, not text"),
        ({"a": object()}, ".a: a object is not a JSON value"),
    ],
)
def test_values_of_a_bad_shape_are_refused_naming_where(values: dict, says: str) -> None:
    with pytest.raises(ComponentArgsError) as error:
        check_args(NvidiaChartArgsModel, "NvidiaDevicePlugin", "dp", {**CHART, "values": values})
    assert "args.values" in str(error.value) and says in str(error.value)


def test_json_values_pass() -> None:
    values = {"a": [1, 2.5, "x", None, True, {"b": []}]}
    check_args(NvidiaChartArgsModel, "NvidiaDevicePlugin", "dp", {**CHART, "values": values})


def test_a_huge_bad_list_is_cut_saying_how_much() -> None:
    from gpupools.component_args import EksGpuNodeGroupArgsModel

    args = {
        "cluster_name": "gpu-eks",
        "node_role_arn": "arn:aws:iam::123456789012:role/gpu-eks-nodes",
        "node_group_name": "a100",
        "instance_type": "p4d.24xlarge",
        "desired_size": 1,
        "subnet_ids": [f"bad{i}" for i in range(10_000)],
    }
    with pytest.raises(ComponentArgsError) as error:
        check_args(EksGpuNodeGroupArgsModel, "EksGpuNodeGroup", "a100", args)
    lines = str(error.value).splitlines()
    assert len(lines) == 21 and lines[-1].endswith("args: 9980 more problems like these, not shown")
    assert len(str(error.value)) < 5000


def test_a_value_quoted_in_an_error_is_cut_saying_how_much() -> None:
    with pytest.raises(ComponentArgsError) as error:
        check_args(NvidiaChartArgsModel, "NvidiaDevicePlugin", "dp", {**CHART, "values": list(range(10_000))})
    assert "(10000 items, 9994 not shown)" in str(error.value) and len(str(error.value)) < 500
