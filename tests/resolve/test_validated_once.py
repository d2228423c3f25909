"""``validated_once``: inside the block ``load_stack`` answers an equal config with the Stack already validated, and
validates everything else (a config of other types, values or key order, and anything after the block)."""

from __future__ import annotations

import copy
import json

import pytest

from gpupools.config import ConfigError
from gpupools.resolve import load_stack
from gpupools.resolve.handed_down import exact_key
from gpupools.resolve.stack_loader import validated_once
from support.base_configs import PINNED_AZURE, config


def test_an_equal_config_gets_the_stack_validated_first():
    with validated_once(PINNED_AZURE) as stack:
        assert load_stack(copy.deepcopy(PINNED_AZURE)) is stack
        # What the stack program reads back from Pulumi's config: the same data through JSON text.
        assert load_stack(json.loads(json.dumps(PINNED_AZURE))) is stack
        # Keys with or without the namespace, and other namespaces' keys, are the same gpupools config.
        bare = {key.removeprefix("gpupools:"): value for key, value in PINNED_AZURE.items()}
        assert load_stack({"azure-native:location": "southcentralus", **bare}) is stack


def test_outside_the_block_every_config_is_validated_anew():
    with validated_once(PINNED_AZURE) as stack:
        pass
    again = load_stack(copy.deepcopy(PINNED_AZURE))
    assert again is not stack
    assert [pool.name for pool in again.pools] == ["mig1g"]


def test_the_block_ends_with_an_error_too():
    with pytest.raises(RuntimeError), validated_once(PINNED_AZURE) as stack:
        raise RuntimeError("program failed")
    assert load_stack(copy.deepcopy(PINNED_AZURE)) is not stack


def test_another_value_is_validated_on_its_own():
    renamed = config(PINNED_AZURE, {"name": "other"})
    with validated_once(PINNED_AZURE):
        assert [pool.name for pool in load_stack(renamed).pools] == ["other"]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"count": True}, id="bool-for-int"),
        pytest.param({"count": 1.0}, id="float-for-int"),
    ],
)
def test_a_value_of_another_type_is_not_the_same_config(change):
    """The stack file says ``count: 1``; ``True`` or ``1.0`` compare equal to it in Python but are refused."""
    with validated_once(PINNED_AZURE), pytest.raises(ConfigError):
        load_stack(config(PINNED_AZURE, change))


def test_a_tuple_is_not_the_list_it_equals():
    as_tuple = copy.deepcopy(PINNED_AZURE)
    as_tuple["gpupools:gpuPools"] = tuple(as_tuple["gpupools:gpuPools"])
    assert exact_key(as_tuple) != exact_key(PINNED_AZURE)


def test_key_order_and_signed_zero_make_other_keys():
    assert exact_key({"a": 1, "b": 2}) != exact_key({"b": 2, "a": 1})
    assert exact_key(0.0) != exact_key(-0.0)
    assert exact_key({"a": [1, "x", None, 2.5]}) == exact_key({"a": [1, "x", None, 2.5]})


@pytest.mark.parametrize("value", [{1: "a"}, {"a": {1, 2}}, [object()], {"a": b"bytes"}])
def test_anything_but_json_data_has_no_key(value):
    assert exact_key(value) is None


def test_labels_in_another_order_keep_their_own_order():
    first = config(PINNED_AZURE, {"labels": {"team": "ml", "tier": "gpu"}})
    swapped = config(PINNED_AZURE, {"labels": {"tier": "gpu", "team": "ml"}})
    with validated_once(first) as stack:
        other = load_stack(swapped)
    assert other is not stack
    assert list(other.pools[0].config.labels) == ["tier", "team"]
