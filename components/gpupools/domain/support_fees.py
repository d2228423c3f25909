"""What long-term Kubernetes support adds to a stack's bill: AKS's Premium tier when ``cluster.longTermSupport`` is
set (LTS needs it), EKS's extended-support surcharge when the minor is past standard support on the plan's date.
The rates and their sources are the clouds' ``KubernetesOffer.long_term_fee`` (``catalog/kubernetes_versions.py``).
"""

from __future__ import annotations

from ..catalog.cloud import KubernetesOffer
from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.kubernetes_versions import LONG_TERM, SupportFee
from .stack import Stack


def support_fees(stack: Stack) -> tuple[SupportFee, ...]:
    """The per-cluster-hour fees long-term support adds to a created cluster, on the stack's plan date."""
    cluster, cloud = stack.config.cluster, cloud_named(stack.cloud)
    if cluster is None or not cluster.create or not cloud.has(KubernetesOffer):
        return ()
    offer = cloud.facet(KubernetesOffer)
    if offer.long_term_fee is None:
        return ()
    if offer.long_term_opt_in:
        return (offer.long_term_fee,) if cluster.long_term_support else ()
    window = offer.minors.get(cluster.kubernetes_version)
    past_standard = window is not None and stack.on is not None and window.status(stack.on.day) == LONG_TERM
    return (offer.long_term_fee,) if past_standard else ()
