"""NVIDIA software wiring of ``GpuPlatform``: the chosen chart with values from the stack, then optional smoke tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable

import pulumi
import pulumi_kubernetes as k8s

from ..domain.capacity import advertised_resources
from ..charts.dcgm_exporter import dcgm_exporter_values
from ..catalog import installers
from ..catalog.installers import Capability
from ..catalog.chart_refs import DCGM_EXPORTER
from ..charts.values import chart_values
from ..domain.stack import Stack
from ..kubernetes.dcgm_exporter import NvidiaDcgmExporter
from ..charts.dra_driver import operator_beside_dra, operator_beside_dra_values
from ..catalog.chart_refs import GPU_OPERATOR
from ..kubernetes.nvidia_releases import NvidiaChartArgs, NvidiaDevicePlugin, NvidiaDraDriver, NvidiaGpuOperator
from ..kubernetes.smoke_test import GpuSmokeTest
from ..catalog.labels import GPU_TAINT_KEY
from ..domain.workloads import pool_node_selector

# The Pulumi component that installs each installer's chart.
ChartComponent = Callable[[str, NvidiaChartArgs, pulumi.ResourceOptions], pulumi.ComponentResource]
CHART_COMPONENT: Capability[ChartComponent] = Capability("a chart component")
installers.DEVICE_PLUGIN.attach(CHART_COMPONENT, NvidiaDevicePlugin)
installers.GPU_OPERATOR.attach(CHART_COMPONENT, NvidiaGpuOperator)
installers.DRA_DRIVER.attach(CHART_COMPONENT, NvidiaDraDriver)


def install(
    stack: Stack, provider: k8s.Provider, pools: Sequence[pulumi.Resource], prefix: str, opts: pulumi.ResourceOptions
) -> pulumi.ComponentResource | None:
    """The installer's chart; None when ``gpuSoftware.install`` is false (the existing cluster's owner runs it)."""
    # The daemonset placement check already ran in load_stack, before any resource was registered.
    software = stack.config.gpu_software
    if not software.install:
        return None
    depends_on = [*pools, *_operator_beside_dra(stack, provider, pools, prefix, opts)]
    return software.chosen_installer.facet(CHART_COMPONENT)(
        prefix + software.installer,
        {
            "version": software.resolved_version,
            "namespace": software.resolved_namespace,
            "values": chart_values(stack),
            # kube-system and the like exist already; a Namespace resource for them would delete them on destroy.
            "create_namespace": software.creates_namespace,
        },
        pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers=[provider], depends_on=depends_on)),
    )


def _operator_beside_dra(
    stack: Stack, provider: k8s.Provider, pools: Sequence[pulumi.Resource], prefix: str, opts: pulumi.ResourceOptions
) -> list[pulumi.Resource]:
    """The GPU Operator, device plugin off, before the DRA driver: static MIG must exist before the driver starts."""
    if not operator_beside_dra(stack):
        return []
    return [
        NvidiaGpuOperator(
            f"{prefix}gpu-operator",
            {
                "version": GPU_OPERATOR.default_version,
                "namespace": GPU_OPERATOR.name,
                "values": operator_beside_dra_values(stack),
            },
            pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers=[provider], depends_on=pools)),
        )
    ]


def metrics(
    stack: Stack, provider: k8s.Provider, software: pulumi.Resource | None, prefix: str, opts: pulumi.ResourceOptions
) -> NvidiaDcgmExporter | None:
    """dcgm-exporter beside the device plugin, in its namespace; the GPU Operator runs its own (through its values).
    None without an installed chart: the cluster's owner runs the software, metrics included."""
    if not stack.config.gpu_software.installs_dcgm_exporter or software is None:
        return None
    return NvidiaDcgmExporter(
        f"{prefix}dcgm-exporter",
        {
            "version": DCGM_EXPORTER.default_version,
            "namespace": stack.config.gpu_software.resolved_namespace,
            "values": dcgm_exporter_values(stack),
        },
        pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers=[provider], depends_on=[software])),
    )


def smoke_tests(
    stack: Stack, provider: k8s.Provider, software: pulumi.Resource | None, prefix: str, opts: pulumi.ResourceOptions
) -> list[GpuSmokeTest]:
    """One Job per pool that asked for it and has nodes (an output count is refused with smoke_test)."""
    return [
        GpuSmokeTest(
            f"{prefix}{pool.name}-smoke",
            {
                "pool_name": pool.name,
                "namespace": stack.config.gpu_software.resolved_namespace,
                "resources": list(advertised_resources(pool)),
                "node_selector": pool_node_selector(pool),
                "toleration_key": GPU_TAINT_KEY,
            },
            pulumi.ResourceOptions.merge(
                opts, pulumi.ResourceOptions(providers=[provider], depends_on=_after(software))
            ),
        )
        for pool in stack.pools
        if pool.config.smoke_test and pool.nodes > 0
    ]


def _after(software: pulumi.Resource | None) -> list[pulumi.Resource]:
    """What waits for the chart: nothing when this stack installs none (the owner's runs already)."""
    return [software] if software is not None else []
