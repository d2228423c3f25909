"""Leaving the properties an azure-native resource leaves unset out of its Python object.

The SDK's ``AgentPool`` puts each of its properties in the resource's props, unset ones as ``None``, and the SDK
gives every one an Output of its own (a resolver, three futures and a task), at every plan and deployment: at 50
pools, most of the plan's outputs. An unset input is never sent (``rpc.serialize_properties`` treats a property that
serializes to ``None`` as absent), so leaving those out changes nothing the engine receives; only the child's Python
object has fewer attributes. The outputs a component reads are kept, set or not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Optional

import pulumi

Transformation = Callable[[pulumi.ResourceTransformationArgs], Optional[pulumi.ResourceTransformationResult]]


def without_unset_properties(read: Iterable[str]) -> Transformation:
    """A (legacy, SDK-side) transformation that drops the props set to ``None``, but for those named in ``read``
    (Python names, as the component reads them: ``pool.name``)."""
    kept = frozenset(read)

    def transformation(args: pulumi.ResourceTransformationArgs) -> Optional[pulumi.ResourceTransformationResult]:
        props = {key: value for key, value in args.props.items() if value is not None or key in kept}
        return pulumi.ResourceTransformationResult(props, args.opts)

    return transformation
