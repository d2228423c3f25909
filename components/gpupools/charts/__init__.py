"""Helm values for NVIDIA's charts, as pure functions of a validated ``Stack``.

``refs`` names the charts and pinned versions, ``device_plugin`` and ``gpu_operator`` build each chart's
values, ``device_plugin_config`` and ``mig_parted`` render the config files those values embed, and
``defaults`` records what the charts do by default about placement (read by ``gpupools.scheduling``).
``cluster_autoscaler`` builds the values of the Kubernetes cluster-autoscaler chart (EKS).
"""

from .cluster_autoscaler import CLUSTER_AUTOSCALER, cluster_autoscaler_values
from .defaults import DEVICE_PLUGIN_DEFAULTS, GPU_OPERATOR_DEFAULTS, ChartDefaults, DaemonSet, defaults_for
from .device_plugin import device_plugin_values
from .device_plugin_config import default_device_plugin_config, device_plugin_configs, pool_device_plugin_config
from .gpu_operator import DEVICE_PLUGIN_CONFIGMAP, gpu_operator_values
from .mig_parted import MIG_PARTED_CONFIGMAP, mig_parted_config, mig_parted_configmap_data
from .refs import DEVICE_PLUGIN, GPU_OPERATOR, ChartRef, chart_for

__all__ = [
    "CLUSTER_AUTOSCALER", "cluster_autoscaler_values", "DEVICE_PLUGIN", "DEVICE_PLUGIN_CONFIGMAP", "DEVICE_PLUGIN_DEFAULTS", "GPU_OPERATOR", "GPU_OPERATOR_DEFAULTS",
    "MIG_PARTED_CONFIGMAP", "ChartDefaults", "ChartRef", "DaemonSet", "chart_for", "default_device_plugin_config",
    "defaults_for", "device_plugin_configs", "device_plugin_values", "gpu_operator_values",
    "mig_parted_config", "mig_parted_configmap_data", "pool_device_plugin_config",
]
