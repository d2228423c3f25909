"""The components other languages get through ``pulumi package add``, and the offline schema of that package.

Importing this module loads both cloud SDKs (the provider hosts every component); programs in Python
import the cloud subpackage they need instead.
"""

from __future__ import annotations

from typing import Any

import pulumi

from ._version import __version__
from .aws.cluster import EksCluster
from .aws.gpu_node_group import EksGpuNodeGroup
from .azure.cluster import AksCluster
from .azure.gpu_pool import AksGpuPool
from .kubernetes.dcgm_exporter import NvidiaDcgmExporter
from .kubernetes.nvidia_charts import NvidiaDevicePlugin, NvidiaDraDriver, NvidiaGpuOperator
from .kubernetes.smoke_test import GpuSmokeTest
from .kubernetes.cluster_autoscaler import ClusterAutoscaler
from .platform.component import GpuPlatform

PACKAGE_NAME = "gpupools"
COMPONENTS: list[type[pulumi.ComponentResource]] = [
    AksCluster, AksGpuPool, EksCluster, EksGpuNodeGroup, NvidiaDevicePlugin, NvidiaGpuOperator, NvidiaDraDriver,
    NvidiaDcgmExporter, GpuSmokeTest, ClusterAutoscaler, GpuPlatform,
]


def package_schema() -> dict[str, Any]:
    """The Pulumi package schema the provider would serve, generated offline from the type annotations."""
    from pulumi.provider.experimental.analyzer import Analyzer
    from pulumi.provider.experimental.schema import generate_schema

    analyzed = Analyzer(PACKAGE_NAME).analyze(COMPONENTS)
    spec = generate_schema(
        PACKAGE_NAME, __version__, None, analyzed["component_definitions"], analyzed["type_definitions"],
        analyzed["dependencies"],
    )
    return spec.to_json() if hasattr(spec, "to_json") else spec
