"""A fourth installer, registered as a stub, gets no other installer's behaviour: each capability it was not
given fails with "<capability> is not supported by installer <name>", and its facts decide the pure rules."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from gpupools.catalog import installers
from gpupools.catalog.chart_defaults import DEVICE_PLUGIN_DEFAULTS
from gpupools.catalog.installers import INSTALLERS, Installer, UnsupportedByInstaller
from gpupools.charts.values import CHART_VALUES, chart_values
from gpupools.domain.stack import Stack
from gpupools.errors import GpupoolsError
from gpupools.resolve import installer_rules, load_stack
from gpupools.resolve.installer_rules import STACK_RULES
from support.base_configs import AWS

PURE_CAPABILITIES = [CHART_VALUES, STACK_RULES]


@pytest.fixture
def stub() -> Iterator[Installer]:
    item = installers.register(
        Installer(
            "stub",
            DEVICE_PLUGIN_DEFAULTS,
            uses_dra=False,
            manages_mig_layouts=True,
            installs_driver=False,
            has_own_dcgm_exporter=True,
            needs_one_os_per_cluster=False,
            deploys_mig_manager=False,
        )
    )
    yield item
    installers.unregister("stub")


def _with_installer(stack: Stack, name: str) -> Stack:
    """The stack as if its file named ``name`` (past the schema's Literal, which lists the shipped ones only)."""
    software = stack.config.gpu_software.model_copy(update={"installer": name})
    return dataclasses.replace(stack, config=stack.config.model_copy(update={"gpu_software": software}))


@pytest.mark.parametrize("capability", PURE_CAPABILITIES, ids=lambda c: c.name)
def test_every_shipped_installer_has_each_pure_capability(capability):
    assert [name for name, item in INSTALLERS.items() if not item.supports(capability)] == []


@pytest.mark.parametrize("capability", PURE_CAPABILITIES, ids=lambda c: c.name)
def test_stub_lacks_each_capability_with_a_clear_error(stub, capability):
    with pytest.raises(UnsupportedByInstaller, match=f"^{capability.name} is not supported by installer stub$"):
        stub.facet(capability)


def test_the_error_is_a_gpupools_error(stub):
    with pytest.raises(GpupoolsError):
        stub.facet(CHART_VALUES)


def test_a_stack_naming_the_stub_never_takes_another_installers_values_or_rules(stub):
    stack = _with_installer(load_stack(AWS), "stub")
    assert stack.config.gpu_software.chosen_installer is stub
    with pytest.raises(UnsupportedByInstaller, match="chart values is not supported by installer stub"):
        chart_values(stack)
    with pytest.raises(UnsupportedByInstaller, match="stack-file rules is not supported by installer stub"):
        installer_rules.config_findings(stack.config)


def test_the_stubs_facts_decide_what_the_config_derives(stub):
    software = _with_installer(load_stack(AWS), "stub").config.gpu_software
    # has_own_dcgm_exporter: its exporter runs by default and gpupools installs none beside it.
    assert (software.runs_dcgm_exporter, software.installs_dcgm_exporter) == (True, False)
    assert software.manages_mig_layouts is True
    # Its chart reference comes from its own defaults table.
    assert software.resolved_namespace == DEVICE_PLUGIN_DEFAULTS.chart.name


def test_a_facet_attached_to_the_stub_is_the_one_used(stub):
    stub.attach(CHART_VALUES, lambda stack: {"stub": stack.config.cluster.name})
    assert chart_values(_with_installer(load_stack(AWS), "stub")) == {"stub": "gpu-eks"}


def test_registering_a_name_twice_is_refused(stub):
    with pytest.raises(ValueError, match="registered already"):
        installers.register(stub)
