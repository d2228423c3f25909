"""Dropping the azure-native SDK's per-API-version aliases from the resources these components create.

Every ``AgentPool`` and ``ManagedCluster`` carries over a hundred aliases (one per historical API
version) that the Python SDK turns into URNs through chains of Outputs: measured here, ~100 ms per pool
of plan time (benchmarks/plan.py). They only help resources first created under a versioned type token
(``azure-native:containerservice/v20190201:AgentPool``); gpupools always created the unversioned one.
"""

import copy
from typing import Optional

import pulumi


def without_sdk_aliases(args: pulumi.ResourceTransformationArgs) -> Optional[pulumi.ResourceTransformationResult]:
    """A (legacy, SDK-side) transformation: it runs before the SDK expands aliases, unlike ``transforms``."""
    if not args.opts or not args.opts.aliases:
        return None
    opts = copy.copy(args.opts)
    opts.aliases = None
    return pulumi.ResourceTransformationResult(args.props, opts)
