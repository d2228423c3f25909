"""Helm values of the ``cluster-autoscaler`` chart on EKS, as a pure function of plain arguments.

Keys are those of chart 9.59.0's ``values.yaml``: ``cloudProvider``, ``autoDiscovery.clusterName`` (rendered
as ``--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<name>``),
``awsRegion`` (the ``AWS_REGION`` env), ``rbac.serviceAccount`` (IRSA through the
``eks.amazonaws.com/role-arn`` annotation, chart README), ``extraArgs`` (each a ``--key=value`` flag) and
``expanderPriorities`` (the priority expander's ConfigMap).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..catalog.autoscaler_versions import autoscaler_image_tag
from ..catalog.chart_refs import CLUSTER_AUTOSCALER_SERVICE_ACCOUNT, DEFAULT_EXPANDER
from ..catalog.dra_driver import AUTOSCALER_DRA_FLAG, AUTOSCALER_DRA_ON_MINOR

IRSA_ROLE_ANNOTATION = "eks.amazonaws.com/role-arn"
CHART_APP_MINOR = 35  # chart 9.59.0 (catalog.chart_refs.CLUSTER_AUTOSCALER): Chart.yaml appVersion 1.35.0


def cluster_autoscaler_values(
    cluster_name: Any,
    region: Any,
    role_arn: Any,
    *,
    service_account: str = CLUSTER_AUTOSCALER_SERVICE_ACCOUNT,
    expander: str = DEFAULT_EXPANDER,
    priorities: Mapping[str, list[str]] | None = None,
    scale_down_utilization_threshold: float | None = None,
    scale_down_gpu_utilization_threshold: float | None = None,
    kubernetes_version: str | None = None,
    dynamic_resource_allocation: bool = False,
) -> dict[str, Any]:
    """Values for one EKS cluster. ``cluster_name``, ``region`` and ``role_arn`` may be Pulumi outputs.

    Thresholds left at None keep the autoscaler's defaults (0.5 each, cluster-autoscaler 1.35.0 flags.go).
    ``kubernetes_version`` (``major.minor``) picks the image of the same minor (``image.tag``); None keeps the
    chart's appVersion. A version the table lacks is refused before this (``resolve.autoscaler_version_rule``).
    ``dynamic_resource_allocation`` (a DRA stack): an image below 1.35 gets ``--enable-dynamic-resource-allocation``,
    off by default there (flags.go at cluster-autoscaler-1.34.3); from 1.35 it is locked on and left alone.
    """
    extra_args: dict[str, Any] = {"expander": expander}
    if scale_down_utilization_threshold is not None:
        extra_args["scale-down-utilization-threshold"] = str(scale_down_utilization_threshold)
    if scale_down_gpu_utilization_threshold is not None:
        extra_args["scale-down-gpu-utilization-threshold"] = str(scale_down_gpu_utilization_threshold)
    values: dict[str, Any] = {
        "cloudProvider": "aws",
        "autoDiscovery": {"clusterName": cluster_name},
        "awsRegion": region,
        "rbac": {
            "serviceAccount": {"create": True, "name": service_account, "annotations": {IRSA_ROLE_ANNOTATION: role_arn}}
        },
        # Helm merges maps: the chart's own extraArgs (logtostderr, stderrthreshold, v) stay beside these.
        "extraArgs": extra_args,
    }
    tag = autoscaler_image_tag(kubernetes_version) if kubernetes_version is not None else None
    if dynamic_resource_allocation and image_minor(tag) < AUTOSCALER_DRA_ON_MINOR:
        extra_args[AUTOSCALER_DRA_FLAG] = True
    if tag is not None:
        values["image"] = {"tag": tag}  # Helm merges maps: the chart's repository and pullPolicy stay
    if expander == "priority":
        # Text keys: Helm values are JSON maps; the chart's template turns each key into an int (``$k | int``).
        values["expanderPriorities"] = {  # a list that is an output (a component's input) is handed on as it is
            str(key): list(patterns) if isinstance(patterns, (list, tuple)) else patterns
            for key, patterns in (priorities or {}).items()
        }
    return values


def image_minor(tag: str | None) -> int:
    """The cluster-autoscaler minor of an image tag (``v1.34.3`` -> 34); None is the chart's own appVersion."""
    if tag is None:
        return CHART_APP_MINOR
    return int(tag.lstrip("v").split(".")[1])
