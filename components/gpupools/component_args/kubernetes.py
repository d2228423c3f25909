"""Arguments of the Kubernetes components: NVIDIA charts, the GPU smoke test, the cluster autoscaler."""

from __future__ import annotations

import re
from typing import Annotated, Any, Optional

import pydantic
from pydantic import AfterValidator, Field, ValidationInfo, model_validator

from ..catalog.chart_refs import DCGM_EXPORTER, DEFAULT_EXPANDER, ChartRef
from ..catalog.installers import installer
from ..config import models as config
from ..catalog import names
from ..resolve import aws_rules
from ..resolve.autoscaler_version_rule import autoscaler_version_problem, priorities_problems
from .fields import JsonValues, Labels, Rule, Tags, _Args, _checked, _dns_label, _input, _like, _matching, is_deferred


class _HelmReleaseArgs(_Args):
    """What every pinned-release component takes: an exact version, a DNS-1123 namespace, values, a timeout."""

    version: Annotated[str, Rule(_input(str))]
    # the config's gpuSoftware.namespace rule
    namespace: Annotated[str, Rule(_input(_checked(names.nvidia_namespace_problem)))]
    values: JsonValues  # checked for shape before Helm or Pulumi's serializer meets a cycle or a NaN
    timeout_seconds: Optional[Annotated[int, Rule(_input(Annotated[int, Field(ge=1, le=86400)]))]] = None
    create_namespace: Optional[Annotated[bool, Rule(_input(bool))]] = None


def _exact_version(version: Any, chart: ChartRef, name: str) -> Any:
    if isinstance(version, str) and not chart.is_pinned(version):
        raise ValueError(
            f"{version!r} is not an exact {name} chart version; allowed: e.g. '{chart.default_version}' "
            "('latest' and ranges are refused)"
        )
    return version


class NvidiaChartArgsModel(_HelmReleaseArgs):
    """``version`` is checked against the chart's own spelling (``validation_context={"installer": ...}``)."""

    @pydantic.field_validator("version")
    @classmethod
    def _pinned(cls, version: Any, info: ValidationInfo) -> Any:
        name = (info.context or {}).get("installer")
        if not name:
            return version
        return _exact_version(version, installer(name).chart, name)


class NvidiaDcgmExporterArgsModel(_HelmReleaseArgs):
    """The dcgm-exporter chart spells versions like the device plugin's: digits only, no ``v`` (``4.8.2``)."""

    @pydantic.field_validator("version")
    @classmethod
    def _pinned(cls, version: Any) -> Any:
        return _exact_version(version, DCGM_EXPORTER, DCGM_EXPORTER.name)


# The Job is ``<pool>-smoke``, a DNS subdomain whose name Kubernetes also puts in a label (63 at most).
SMOKE_JOB_SUFFIX = "-smoke"
_SMOKE_POOL = re.compile(rf"[a-z0-9]([-a-z0-9]{{0,{63 - len(SMOKE_JOB_SUFFIX) - 2}}}[a-z0-9])?")
_IMAGE = re.compile(r"[a-z0-9][a-z0-9._/:-]*(:(?!latest$)[\w][\w.-]{0,127}|@sha256:[0-9a-f]{64})", re.ASCII)


class GpuSmokeTestArgsModel(_Args):
    pool_name: Annotated[
        str,
        Rule(
            _matching(
                _SMOKE_POOL,
                f"1..{63 - len(SMOKE_JOB_SUFFIX)} lowercase letters, digits and '-' (the Job is <pool>-smoke)",
            )
        ),
    ]
    namespace: Annotated[str, Rule(_input(Annotated[str, AfterValidator(_dns_label)]))]
    # Each resource names a container and is its limit's key: known when the program runs, never an output.
    resources: Annotated[
        list[str], Rule(_input(Annotated[list[_checked(names.label_key_problem)], Field(min_length=1)]))
    ]
    node_selector: Labels
    toleration_key: Annotated[str, Rule(_input(_checked(names.label_key_problem)))]
    image: Optional[
        Annotated[
            str,
            Rule(
                _matching(
                    _IMAGE,
                    "an image with a pinned tag (not latest) or digest, "
                    "e.g. nvcr.io/nvidia/cuda:12.8.1-base-ubuntu24.04",
                )
            ),
        ]
    ] = None


_OIDC_PROVIDER_ARN = re.compile(r"arn:(?P<partition>aws(-cn|-us-gov)?):iam::[0-9]{12}:oidc-provider/.+")


def _autoscaler_version(value: str) -> str:
    """The config's rule: a Kubernetes minor the autoscaler image table covers."""
    why = autoscaler_version_problem(value)
    if why is not None:
        raise ValueError(why)
    return value


class ClusterAutoscalerArgsModel(_Args):
    cluster_name: Annotated[
        str,
        Rule(_matching(names.EKS_CLUSTER_NAME, "1..100 letters, digits, '-' and '_', starting with a letter or digit")),
    ]
    region: Annotated[str, Rule(_matching(names.AWS_REGION, "an AWS region, e.g. us-east-1"))]
    oidc_provider_arn: Annotated[
        str,
        Rule(
            _matching(
                _OIDC_PROVIDER_ARN,
                "the cluster's IAM OIDC provider ARN, "
                "arn:aws:iam::<account>:oidc-provider/oidc.eks.<region>.amazonaws.com/id/<id>",
            )
        ),
    ]
    oidc_provider_url: Annotated[
        str,
        Rule(
            _matching(
                re.compile(r"(https://)?[a-z0-9.-]+(/[A-Za-z0-9._-]+)*"),
                "the issuer URL, e.g. https://oidc.eks.us-east-1.amazonaws.com/id/<id>",
            )
        ),
    ]
    version: Optional[Annotated[str, Rule(_like(config.ClusterAutoscalerConfig, "version"))]] = None
    namespace: Optional[Annotated[str, Rule(_input(Annotated[str, AfterValidator(_dns_label)]))]] = None
    service_account: Optional[Annotated[str, Rule(_input(Annotated[str, AfterValidator(_dns_label)]))]] = None
    expander: Optional[Annotated[str, Rule(_like(config.ClusterAutoscalerConfig, "expander"))]] = None
    # rule: priorities_problems (in _priorities below)
    priorities: Optional[Annotated[dict[str, list[str]], Rule(_input(dict[_input(str), _input(list[str])]))]] = None
    scale_down_utilization_threshold: Optional[
        Annotated[float, Rule(_like(config.ClusterAutoscalerConfig, "scale_down_utilization_threshold"))]
    ] = None
    scale_down_gpu_utilization_threshold: Optional[
        Annotated[float, Rule(_like(config.ClusterAutoscalerConfig, "scale_down_gpu_utilization_threshold"))]
    ] = None
    tags: Optional[Tags] = None
    kubernetes_version: Optional[Annotated[str, Rule(_input(Annotated[str, AfterValidator(_autoscaler_version)]))]] = (
        None
    )
    dynamic_resource_allocation: Optional[bool] = None

    @model_validator(mode="after")
    def _priorities(self) -> "ClusterAutoscalerArgsModel":
        problem = config.expander_problem(self.expander or DEFAULT_EXPANDER, self.priorities)
        problems = [f"priorities: {problem}"] if problem else []
        if isinstance(self.priorities, dict) and not any(map(is_deferred, self.priorities.values())):
            problems += [f"priorities: {why}" for why in priorities_problems(self.priorities)]
        arn = _OIDC_PROVIDER_ARN.fullmatch(self.oidc_provider_arn) if isinstance(self.oidc_provider_arn, str) else None
        partition = (
            aws_rules.partition_problem(arn["partition"], self.region) if arn and isinstance(self.region, str) else None
        )
        problems += [f"oidc_provider_arn: {partition}"] if partition else []
        if problems:
            raise ValueError("\n".join(problems))
        return self


class KarpenterArgsModel(_Args):
    cluster_name: Annotated[
        str,
        Rule(_matching(names.EKS_CLUSTER_NAME, "1..100 letters, digits, '-' and '_', starting with a letter or digit")),
    ]
    region: Annotated[str, Rule(_matching(names.AWS_REGION, "an AWS region, e.g. us-east-1"))]
    node_overlay: Optional[Annotated[bool, Rule(_input(bool))]] = None
    version: Optional[Annotated[str, Rule(_like(config.KarpenterConfig, "version"))]] = None
    pod_identity_agent: Optional[Annotated[bool, Rule(_input(bool))]] = None
    tags: Optional[Tags] = None


class KarpenterPoolArgsModel(_Args):
    """The objects are built by ``domain/karpenter_objects.py`` (checked against the CRDs in its tests)."""

    node_pool_name: Annotated[str, Rule(_input(Annotated[str, AfterValidator(_dns_label)]))]
    node_class: JsonValues
    node_pool: JsonValues
    node_overlay: Optional[JsonValues] = None
