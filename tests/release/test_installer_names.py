"""No module outside the installers' own table compares an installer's name: code asks the ``Installer`` object
(``gpuSoftware.chosen_installer``) for a fact or a facet instead, so a new installer never falls through to
another's path. Read from the source with ``ast``."""

from __future__ import annotations

import pytest

from gpupools.catalog.installers import INSTALLERS
from support.name_comparisons import PACKAGE, NameComparisons

OWN = {PACKAGE / "catalog" / "installers.py"}  # where each installer is defined, by name
# ``x.installer`` is the stack file's name of the installer; comparing it is comparing a name.
comparisons = NameComparisons(frozenset(INSTALLERS), frozenset({"installer", "_installer"}))


@pytest.mark.parametrize(
    "source",
    [
        'if software.installer == "dra-driver": pass',
        'ok = name in ("device-plugin", "gpu-operator")',
        'ok = "gpu-operator" != name',
        "ok = config.gpu_software.installer != other",
        'TABLE = {"dra-driver": 1}',
        'match name:\n    case "device-plugin": pass',
    ],
)
def test_the_check_sees_each_way_of_comparing_a_name(source):
    assert comparisons(source)


def test_the_check_leaves_other_strings_alone():
    assert comparisons('if role == "dra-kubelet-plugin": pass\nmessage = "set installer gpu-operator"') == []


def test_no_module_outside_the_installers_compares_an_installer_name():
    assert comparisons.in_package(OWN) == []
