"""A pool the DRA driver serves is counted in the driver's devices, not in a device plugin's extended resources:
the capacity table, the node template the autoscaler reads, and sharing all follow what the driver publishes
(one device per whole GPU or MIG device, reference-resourceslice-attributes.md)."""

from __future__ import annotations

from typing import Any

from gpupools.domain.capacity import advertised_resources, stack_capacity
from gpupools.domain.node_templates import pool_node_template
from gpupools.resolve.stack_loader import load_stack


def _stack(cloud: str, pool: dict[str, Any], installer: str = "dra-driver", **software: Any):
    cluster = (
        {
            "name": "gpu-dev",
            "resourceGroup": "gpu-dev-rg",
            "location": "southcentralus",
            "kubernetesVersion": "1.34",
            "systemPool": {"size": "Standard_D4s_v5"},
        }
        if cloud == "azure"
        else {
            "name": "gpu-eks",
            "region": "us-east-1",
            "kubernetesVersion": "1.34",
            "systemPool": {"size": "m6i.large"},
        }
    )
    return load_stack(
        {
            "gpupools:cloud": cloud,
            "gpupools:cluster": cluster,
            "gpupools:gpuPools": [pool],
            "gpupools:gpuSoftware": {"installer": installer, **software},
        }
    )


def test_aks_mig1g_counts_56_driver_devices_not_nvidia_gpu():
    stack = _stack("azure", {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}})
    (capacity,) = stack_capacity(stack.pools)
    assert capacity.advertised == {"gpu.nvidia.com/mig-1g.5gb": 56}
    assert capacity.per_node == {"gpu.nvidia.com/mig-1g.5gb": 56}


def test_eks_all_balanced_counts_16_8_8_driver_devices_whatever_the_strategy():
    for strategy in ("single", "mixed"):
        stack = _stack(
            "aws",
            {"name": "p4d", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}},
            migStrategy=strategy,
            driver="preinstalled",
        )
        assert advertised_resources(stack.pools[0]) == {
            "gpu.nvidia.com/mig-1g.5gb": 16,
            "gpu.nvidia.com/mig-2g.10gb": 8,
            "gpu.nvidia.com/mig-3g.20gb": 8,
        }


def test_whole_gpus_are_driver_gpu_devices():
    stack = _stack("azure", {"name": "whole", "size": "Standard_NC24ads_A100_v4", "count": 3})
    assert advertised_resources(stack.pools[0]) == {"gpu.nvidia.com/gpu": 1}


def test_the_same_pool_under_the_device_plugin_keeps_extended_resources():
    stack = _stack(
        "azure",
        {"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}},
        installer="device-plugin",
    )
    assert advertised_resources(stack.pools[0]) == {"nvidia.com/gpu": 56}


def test_a_dra_node_template_lists_no_resources_the_autoscaler_cannot_build():
    stack = _stack(
        "azure",
        {
            "name": "mig1g",
            "size": "Standard_ND96asr_v4",
            "count": 1,
            "mig": {"profile": "MIG1g"},
            "autoscaling": {"minCount": 1, "maxCount": 3},
        },
    )
    template = pool_node_template(stack.pools[0])
    assert template.resources == {}
    assert template.labels["gpupools.io/pool"] == "mig1g"
