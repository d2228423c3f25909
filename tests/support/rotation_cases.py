"""Stack configs for pool rotation, shared by the domain's name checks (tests/domain/test_rotation.py) and the
components' inputs under mocks (tests/platform/test_rotation_components.py)."""

from __future__ import annotations

from support.base_configs import AWS, AZURE, config
from gpupools.resolve.stack_loader import load_stack

_SUBNETS = {"subnetIds": ["subnet-0123456789abcdef0"], "vpcId": "vpc-0123456789abcdef0"}
_COMPUTED_MAX_PODS = object()  # stands for the maxPods the pool gets when it is left out
# Per fixed field whose default a user can write: (cloud base, the pool without it, the pool with it written out,
# cluster changes). Sources of the defaults: AKS ScaleSetPriority "If not specified, the default is 'Regular'"
# (azure-native AgentPool), Azure Spot "the default max price is -1 if it is not provided", AKS evicts with
# Delete by default (spot-node-pool); the rest are gpupools' documented defaults (README).
WRITTEN_DEFAULTS = {
    "scaleSetPriority": (AZURE, {}, {"priority": "Regular"}, {}),
    "spotMaxPrice": (AZURE, {"priority": "Spot"}, {"priority": "Spot", "spotMaxPrice": -1}, {}),
    "scaleSetEvictionPolicy": (AZURE, {"priority": "Spot"}, {"priority": "Spot", "evictionPolicy": "Delete"}, {}),
    "availabilityZones": (AZURE, {}, {"availabilityZones": []}, {}),
    "maxPods": (AZURE, {}, {"maxPods": _COMPUTED_MAX_PODS}, {}),
    "capacityType": (AWS, {}, {"capacityType": "ON_DEMAND"}, {}),
    "amiType": (AWS, {}, {"amiType": "AL2023_x86_64_NVIDIA"}, {}),
    "diskSize": (AWS, {}, {"diskSizeGb": 256}, {}),
    "subnetIds": (AWS, {}, {"subnetIds": _SUBNETS["subnetIds"]}, _SUBNETS),
}
# Fixed fields no user writes: derived from the size, the MIG plan, the driver or the cluster's role.
NOT_WRITTEN = {"vmSize", "gpuInstanceProfile", "gpuProfile", "instanceTypes", "nodeRoleArn", "launchTemplate.id"}


def written_and_defaulted(field: str) -> tuple[dict, dict]:
    """The stack config without ``field`` (its default applies) and with the default written out."""
    base, defaulted, written, cluster = WRITTEN_DEFAULTS[field]
    without = config(base, defaulted, cluster=cluster)
    if written.get("maxPods") is _COMPUTED_MAX_PODS:
        written = {**written, "maxPods": load_stack(without).pools[0].max_pods}
    return without, config(base, written, cluster=cluster)
