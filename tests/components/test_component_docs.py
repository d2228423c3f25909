"""``help()`` and IDE hover on a component show its own documentation: the class says what it creates and
``__init__`` names every key of its args TypedDict, instead of Pulumi's ``ComponentResource.__init__``
docstring with parameters (``t``, ``props``) the component does not take."""

from __future__ import annotations

import inspect
import pydoc
from typing import get_type_hints

import pulumi
import pytest

from gpupools.aws import EksCluster, EksGpuNodeGroup
from gpupools.azure import AksCluster, AksGpuPool
from gpupools.kubernetes import GpuSmokeTest, NvidiaDcgmExporter, NvidiaDevicePlugin, NvidiaGpuOperator
from gpupools.kubernetes.cluster_autoscaler import ClusterAutoscaler
from gpupools.kubernetes.nvidia_releases import NvidiaDraDriver
from gpupools.platform import GpuPlatform

COMPONENTS = [
    AksCluster,
    AksGpuPool,
    EksCluster,
    EksGpuNodeGroup,
    GpuSmokeTest,
    NvidiaDcgmExporter,
    NvidiaDevicePlugin,
    NvidiaGpuOperator,
    NvidiaDraDriver,
    ClusterAutoscaler,
    GpuPlatform,
]
PULUMI_INIT_DOC = inspect.getdoc(pulumi.ComponentResource.__init__)


def test_every_component_is_listed() -> None:
    import gpupools.aws
    import gpupools.azure
    import gpupools.kubernetes

    exported = {
        getattr(module, name)
        for module in (gpupools.aws, gpupools.azure, gpupools.kubernetes)
        for name in module.__all__
    }
    components = {value for value in exported if isinstance(value, type) and issubclass(value, pulumi.Resource)}
    assert components <= set(COMPONENTS)


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda c: c.__name__)
def test_help_shows_the_components_own_docs(component: type[pulumi.ComponentResource]) -> None:
    assert component.__dict__.get("__doc__"), f"{component.__name__} has no class docstring"
    init_doc = inspect.getdoc(component.__init__)
    assert init_doc and init_doc != PULUMI_INIT_DOC
    assert ":param str t:" not in init_doc and "props" not in init_doc
    args_type = get_type_hints(component.__init__)["args"]
    missing = [key for key in args_type.__annotations__ if key not in init_doc]
    assert not missing, f"{component.__name__}.__init__'s docstring does not name {missing}"
    assert args_type.__name__ in init_doc
    rendered = pydoc.render_doc(component, renderer=pydoc.plaintext)
    assert init_doc.splitlines()[0] in rendered
