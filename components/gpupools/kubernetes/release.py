"""One pinned Helm release in a namespace (created when asked): what every chart component of gpupools installs."""

from typing import Any, Mapping, cast

import pulumi
import pulumi_kubernetes as k8s

from ..catalog.chart_refs import ChartRef

DEFAULT_TIMEOUT_SECONDS = 600


def pinned_release(
    component: pulumi.ComponentResource, name: str, chart: ChartRef, args: Mapping[str, Any], create_namespace: bool
) -> tuple[k8s.helm.v3.Release, pulumi.Output[str]]:
    """The component's optional ``<name>-ns`` Namespace and atomic ``<name>-release``, and the release's namespace.

    Atomic: a failed install or upgrade rolls back instead of leaving the chart half-updated (GPUs unadvertised).
    """
    namespace: pulumi.Input[str] = args["namespace"]
    if create_namespace:
        created = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=args["namespace"]),
            opts=pulumi.ResourceOptions(parent=component),
        )
        namespace = created.metadata.name
    # An OCI registry is no Helm repository: Helm takes the chart's full oci:// reference and no repo option.
    oci = chart.repo.startswith("oci://")
    release = k8s.helm.v3.Release(
        f"{name}-release",
        name=chart.name,
        chart=f"{chart.repo}/{chart.name}" if oci else chart.name,
        version=args["version"],
        repository_opts=None if oci else k8s.helm.v3.RepositoryOptsArgs(repo=chart.repo),
        namespace=namespace,
        values=args.get("values") or {},
        atomic=True,
        timeout=args.get("timeout_seconds") or DEFAULT_TIMEOUT_SECONDS,
        opts=pulumi.ResourceOptions(parent=component),
    )
    return release, pulumi.Output.from_input(namespace)


def release_name_and_version(release: k8s.helm.v3.Release) -> tuple[pulumi.Output[str], pulumi.Output[str]]:
    """The release's name and chart version as outputs. The SDK types both ``Optional`` because they are optional
    inputs, but as outputs they are always set: Helm names every release and records the chart version installed
    (and ``pinned_release`` sets both)."""
    return cast(pulumi.Output[str], release.name), cast(pulumi.Output[str], release.version)
