"""Values for NVIDIA's dcgm-exporter chart (4.8.2), installed beside the device plugin for GPU metrics.

The GPU Operator runs its own exporter (``gpu_operator.py`` maps ``gpuSoftware.metrics`` to it); the
device plugin chart has none, so with ``metrics.dcgmExporter: true`` gpupools installs this chart too.
What we set and why:

* ``tolerations``: our GPU taint and the taints the cloud adds (AKS Spot). The chart only tolerates the
  control plane, so on its defaults it would never reach a GPU node.
* ``nodeSelector``: ``nvidia.com/gpu.present=true``, the label every gpupools GPU pool carries. The chart's
  default (no selector) would also put the exporter on CPU nodes, where it has no GPU to read.
* ``serviceMonitor.enabled``: our ``metrics.serviceMonitor`` (default false). The chart defaults to true,
  and a ServiceMonitor needs the Prometheus Operator's CRDs (``monitoring.coreos.com/v1``): without
  them Helm refuses the whole release ("no matches for kind ServiceMonitor").
* ``image.tag``: the tag chart 4.8.2 ships (``catalog.chart_refs.DCGM_EXPORTER_IMAGE_TAG``), written out so the values
  alone say what runs.
"""

from __future__ import annotations

from typing import Any

from ..catalog.chart_refs import DCGM_EXPORTER_IMAGE_TAG
from ..catalog.labels import GPU_PRESENT_LABEL, GPU_TAINT
from ..domain.stack import Stack
from .device_plugin import cloud_taint_tolerations


def dcgm_exporter_values(stack: Stack) -> dict[str, Any]:
    """Helm values for the dcgm-exporter chart: on every GPU pool and nowhere else."""
    return {
        "image": {"tag": DCGM_EXPORTER_IMAGE_TAG},
        "tolerations": [GPU_TAINT.kubernetes_toleration(), *cloud_taint_tolerations(stack)],
        "nodeSelector": {GPU_PRESENT_LABEL: "true"},
        "serviceMonitor": {"enabled": stack.config.gpu_software.metrics.service_monitor},
    }


def operator_dcgm_exporter_values(stack: Stack) -> dict[str, Any]:
    """The GPU Operator's own ``dcgmExporter`` values: its switch and its ServiceMonitor.

    Without the Prometheus Operator's CRDs the operator skips the ServiceMonitor and carries on
    (gpu-operator v26.7.0 ``controllers/object_controls.go`` ``ServiceMonitor``), unlike Helm above.
    """
    software = stack.config.gpu_software
    return {"enabled": software.runs_dcgm_exporter, "serviceMonitor": {"enabled": software.metrics.service_monitor}}
