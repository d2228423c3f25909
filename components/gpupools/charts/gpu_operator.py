"""Values for the NVIDIA GPU Operator chart (v26.7.0).

Key names are those of the chart's values.yaml at v26.7.0. What we set and why:

* ``driver``/``toolkit`` off when the node image ships them (AKS GPU images, EKS NVIDIA AMIs); on AKS
  also ``operator.runtimeClass=nvidia-container-runtime``, the runtime handler AKS images configure
  (NVIDIA's microsoft-aks.rst, "Installing the Operator for Preinstalled Driver and Toolkit").
* ``cdi`` off with a preinstalled toolkit: v26.x turns CDI on by default and then switches the device plugin to
  ``cdi-annotations,cdi-cri``, but only the operator's own toolkit container puts containerd in CDI mode
  (gpu-operator v26.7.0 ``controllers/object_controls.go``; cloud-native-docs ``cdi.rst``: "CDI support and
  configuration is enabled through the NVIDIA Container Toolkit"); NVIDIA/gpu-operator#1900 failed CUDA
  validation in exactly that setup.
* ``migManager`` only when some pool's MIG layout is the operator's job. A pool whose MIG profile AKS
  set at creation carries ``nvidia.com/gpu.deploy.mig-manager=false``, which the operator keeps (it only
  adds deploy labels a node lacks), so the MIG manager never runs there and never undoes the profile.
  ``WITH_REBOOT=true`` is what NVIDIA documents for cloud VMs (gpu-operator-mig.rst), and a custom
  mig-parted ConfigMap is created only when a pool uses a custom layout.
* ``daemonsets.tolerations``: every operand tolerates our GPU taint (the chart default, kept explicit) and
  the taints the cloud adds (AKS Spot pools), as do the NFD workers.
* ``dcgmExporter.enabled`` and ``dcgmExporter.serviceMonitor.enabled`` from ``gpuSoftware.metrics``: the
  exporter stays on unless turned off (the chart's default), the ServiceMonitor is off unless asked
  (the chart's default is on; see ``dcgm_exporter.operator_dcgm_exporter_values``).
"""

from __future__ import annotations

from typing import Any

from ..catalog.chart_defaults import GPU_OPERATOR_DEFAULTS
from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.labels import GPU_TAINT
from ..domain.stack import Stack
from .dcgm_exporter import operator_dcgm_exporter_values
from .device_plugin import cloud_taint_tolerations
from .device_plugin_config import DEFAULT_CONFIG, device_plugin_configs, sharing_pools
from .mig_parted import ALL_DISABLED, MIG_PARTED_CONFIGMAP, mig_parted_configmap_data, operator_mig_pools

DEVICE_PLUGIN_CONFIGMAP = "gpupools-device-plugin-config"
WITH_REBOOT = {"name": "WITH_REBOOT", "value": "true"}


def gpu_operator_values(stack: Stack) -> dict[str, Any]:
    """Helm values for the GPU Operator chart, from the stack's GPU software and pools."""
    software = stack.config.gpu_software
    preinstalled = software.driver == "preinstalled"
    values: dict[str, Any] = {
        "mig": {"strategy": software.mig_strategy},
        "driver": {"enabled": not preinstalled},
        "toolkit": {"enabled": not preinstalled},
    }
    if preinstalled:
        values["cdi"] = {"enabled": False}
    runtime_class = cloud_named(stack.cloud).preinstalled_runtime_class
    if preinstalled and runtime_class is not None:
        values["operator"] = {"runtimeClass": runtime_class}
    values["migManager"] = _mig_manager(stack)
    if sharing_pools(stack):
        values["devicePlugin"] = {
            "config": {
                "name": DEVICE_PLUGIN_CONFIGMAP,
                "create": True,
                "data": device_plugin_configs(stack),
                "default": DEFAULT_CONFIG,
            }
        }
    values["gfd"] = {"enabled": software.gfd}
    values["dcgmExporter"] = operator_dcgm_exporter_values(stack)
    values["nfd"] = {"enabled": True}
    cloud = cloud_taint_tolerations(stack)
    values["daemonsets"] = {"tolerations": [GPU_TAINT.kubernetes_toleration(), *cloud]}
    if cloud:
        # NFD workers must reach Spot nodes too; keep the chart's own tolerations.
        nfd_defaults = GPU_OPERATOR_DEFAULTS.values["node-feature-discovery"]["worker"]["tolerations"]
        values["node-feature-discovery"] = {"worker": {"tolerations": [*(dict(t) for t in nfd_defaults), *cloud]}}
    return values


def _mig_manager(stack: Stack) -> dict[str, Any]:
    if not operator_mig_pools(stack):
        return {"enabled": False}
    manager: dict[str, Any] = {"enabled": True, "env": [dict(WITH_REBOOT)]}
    data = mig_parted_configmap_data(stack)
    if data is not None:
        manager["config"] = {"name": MIG_PARTED_CONFIGMAP, "create": True, "data": data, "default": ALL_DISABLED}
    return manager
