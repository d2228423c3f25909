"""The program's and ``verify``'s facets of an installer: every shipped installer has them, and a stub fourth
installer without them fails with "<capability> is not supported by installer stub" instead of taking another
installer's component or daemonset."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from gpupools.catalog import installers
from gpupools.catalog.chart_defaults import DEVICE_PLUGIN_DEFAULTS
from gpupools.catalog.installers import INSTALLERS, Installer, UnsupportedByInstaller
from gpupools.platform.nvidia import CHART_COMPONENT
from gpupools.resolve import load_stack
from gpupools.verify.expected import DEVICE_PLUGIN_TARGET, device_plugin_target
from support.base_configs import AZURE

CAPABILITIES = [CHART_COMPONENT, DEVICE_PLUGIN_TARGET]


@pytest.fixture
def stub() -> Iterator[Installer]:
    item = installers.register(
        Installer(
            "stub",
            DEVICE_PLUGIN_DEFAULTS,
            uses_dra=False,
            manages_mig_layouts=False,
            installs_driver=False,
            has_own_dcgm_exporter=False,
            needs_one_os_per_cluster=False,
            deploys_mig_manager=False,
        )
    )
    yield item
    installers.unregister("stub")


@pytest.mark.parametrize("capability", CAPABILITIES, ids=lambda c: c.name)
def test_every_shipped_installer_has_each_capability(capability):
    assert [name for name, item in INSTALLERS.items() if not item.supports(capability)] == []


@pytest.mark.parametrize("capability", CAPABILITIES, ids=lambda c: c.name)
def test_stub_lacks_each_capability_with_a_clear_error(stub, capability):
    with pytest.raises(UnsupportedByInstaller, match=f"^{capability.name} is not supported by installer stub$"):
        stub.facet(capability)


def test_verify_asks_the_stub_not_the_device_plugin_chart(stub):
    stack = load_stack(AZURE)  # the device plugin, whose chart defaults the stub borrows
    software = stack.config.gpu_software.model_copy(update={"installer": "stub"})
    stubbed = dataclasses.replace(stack, config=stack.config.model_copy(update={"gpu_software": software}))
    assert device_plugin_target(stack).daemonset == "nvidia-device-plugin"
    with pytest.raises(UnsupportedByInstaller, match="verify's device plugin target is not supported by installer"):
        device_plugin_target(stubbed)
