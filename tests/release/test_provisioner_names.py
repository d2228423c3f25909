"""No module outside a node provisioner's own compares its name (issue 38): code asks the ``NodeProvisioner`` object
(``pool.provisioner``) for a fact or a facet, and a cloud lists the provisioners it offers. Read with ``ast``."""

from __future__ import annotations

import pytest

from gpupools.catalog.provisioners import PROVISIONERS
from support.name_comparisons import PACKAGE, NameComparisons

# Where a provisioner is defined by name, and Karpenter's own rules (its cluster settings' key is its name too).
OWN = {PACKAGE / "catalog" / "provisioners.py", PACKAGE / "resolve" / "karpenter_rules.py"}
# ``pool.config.provisioner`` is the stack file's name; a dict counts only as a table keyed by provisioner.
comparisons = NameComparisons(frozenset(PROVISIONERS), frozenset({"provisioner"}), name_tables_only=True)


@pytest.mark.parametrize(
    "source",
    [
        'if pool.config.provisioner == "karpenter": pass',
        'ok = name in ("nodeGroup", "karpenter")',
        'TABLE = {"karpenter": 1}',
        'match name:\n    case "nodeGroup": pass',
    ],
)
def test_the_check_sees_each_way_of_comparing_a_name(source):
    assert comparisons(source)


def test_the_check_leaves_other_strings_alone():
    assert comparisons('outputs = {"karpenter": True, "cloud": "aws"}\nmessage = "set provisioner: karpenter"') == []


def test_no_module_outside_a_provisioner_s_own_compares_its_name():
    assert comparisons.in_package(OWN) == []
