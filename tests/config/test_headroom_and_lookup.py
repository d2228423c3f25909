"""The untrusted kit's general guards (issue 36): deep work runs with room and ends as one ``InputTooLarge``,
never a ``RecursionError``; and the one did-you-mean every name lookup uses."""

from __future__ import annotations

import sys
import time

import pytest

from gpupools.untrusted.headroom import InputTooLarge, with_headroom
from gpupools.untrusted.lookup import closest, did_you_mean


def _depth(n: int) -> int:
    return 0 if n == 0 else 1 + _depth(n - 1)


def test_work_deeper_than_pythons_default_runs() -> None:
    assert sys.getrecursionlimit() < 20_000
    with pytest.raises(RecursionError):
        _depth(20_000)
    assert with_headroom(lambda: _depth(20_000), "demand file d.yaml") == 20_000


def test_work_without_end_is_one_input_too_large_naming_the_input() -> None:
    limit = sys.getrecursionlimit()

    def endless(n: int) -> int:
        return endless(n + 1)

    with pytest.raises(InputTooLarge) as refused:
        with_headroom(lambda: endless(0), "demand file d.yaml")
    assert str(refused.value).startswith("demand file d.yaml: too large to process; ")
    assert "recursion" in str(refused.value) and "\n" not in str(refused.value)
    assert sys.getrecursionlimit() == limit  # the process's own limit is as it was


def test_running_out_of_memory_is_input_too_large() -> None:
    def greedy() -> None:
        raise MemoryError

    with pytest.raises(InputTooLarge, match="ran out of memory"):
        with_headroom(greedy, "stack file s.yaml")


def test_other_exceptions_pass_as_they_are() -> None:
    failure = KeyError("x")

    def failing() -> None:
        raise failure

    with pytest.raises(KeyError) as raised:
        with_headroom(failing, "x")
    assert raised.value is failure


@pytest.mark.parametrize(
    ("given", "known", "meant"),
    [
        ("us-est-1", ["eu-west-1", "us-west-1", "us-east-1"], "did you mean 'us-east-1' or 'us-west-1'? "),
        ("os_sku", ["osSku", "osType"], "did you mean 'osSku'? "),  # the same name in another spelling first
        ("OS-SKU", ["osSku", "osType"], "did you mean 'osSku'? "),
        ("1g.5bg", ["1g.5gb", "2g.10gb", "7g.40gb"], "did you mean '1g.5gb'? "),
        ("zzzz", ["1g.5gb", "2g.10gb"], ""),
        ("", ["a"], ""),
    ],
)
def test_did_you_mean(given: str, known: list[str], meant: str) -> None:
    assert did_you_mean(given, known) == meant


def test_a_name_longer_than_any_known_is_not_compared() -> None:
    """difflib's time grows with the product of the lengths: a megabyte of name gets no match, at once."""
    started = time.monotonic()
    assert closest("a" * 1_000_000, ["a" * 10, "b"]) == ()
    assert time.monotonic() - started < 0.5
