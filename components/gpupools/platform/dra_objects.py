"""The DRA objects of a ``dra-driver`` stack: per pool and device kind, the DeviceClass and ResourceClaimTemplate
``domain.dra`` derives, as ``resource.k8s.io/v1`` resources of the cluster.

A sharing pool's devices also get their shared ``ResourceClaim``s (``DraClass.shared_claim``): one per device on
its planned nodes, each carrying the driver's sharing config, for ``replicas`` pods to reference by name.

They wait for the driver's release: a DeviceClass names the driver's devices, and the claim templates live in the
release's namespace, which the release creates. Parented to the platform (not to the release's component) so they
are the platform's own objects, on the cluster's provider.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from ..domain.dra import dra_classes
from ..domain.stack import Stack


def create(
    stack: Stack, provider: k8s.Provider, software: pulumi.Resource | None, prefix: str, parent: pulumi.Resource
) -> list[pulumi.CustomResource]:
    """``<prefix><class name>`` DeviceClasses, ``<prefix><template name>`` claim templates and, for sharing pools,
    ``<prefix><shared claim name>`` ResourceClaims; none without DRA. (``software`` None: the owner's driver.)"""
    opts = pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=[software] if software else [])
    created: list[pulumi.CustomResource] = []
    for cls in dra_classes(stack):
        device_class, template = cls.device_class(), cls.claim_template()
        created.append(
            k8s.resource.v1.DeviceClass(
                f"{prefix}{cls.name}",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=cls.name),
                spec=device_class["spec"],
                opts=opts,
            )
        )
        created.append(
            k8s.resource.v1.ResourceClaimTemplate(
                f"{prefix}{cls.template_name}",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=cls.template_name, namespace=cls.namespace),
                spec=template["spec"],
                opts=opts,
            )
        )
        for index in range(cls.shared_claim_count):
            claim = cls.shared_claim(index)
            created.append(
                k8s.resource.v1.ResourceClaim(
                    f"{prefix}{claim['metadata']['name']}",
                    metadata=k8s.meta.v1.ObjectMetaArgs(**claim["metadata"]),
                    spec=claim["spec"],
                    opts=opts,
                )
            )
    return created
