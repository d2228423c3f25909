"""What a GPU workload needs to land on a pool: the toleration, the node selector and the resource limits.

The limits follow the pool's MIG strategy and sharing (``nvidia.com/gpu`` under single,
``nvidia.com/mig-1g.5gb`` under mixed, ``.shared`` when renamed), and a request the pool cannot satisfy
raises here, while planning, instead of leaving a pod Pending after deploy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..catalog.labels import GPU_RESOURCE, GPU_TAINT, POOL_LABEL, mig_resource_name
from ..errors import GpupoolsError
from .capacity import pool_capacity
from .dra import DraClass, pool_classes
from .pools import ResolvedPool
from .stack import Stack


class WorkloadError(GpupoolsError, ValueError):
    """A GPU request that no node of the pool could ever satisfy."""


@dataclass(frozen=True)
class GpuWorkload:
    """Scheduling for one pod: merge these into its spec (limits go on the container)."""

    pool: str
    tolerations: list[dict[str, str]]
    node_selector: dict[str, str]
    limits: dict[str, str]
    # DRA stacks (installer dra-driver): the pod's resourceClaims, each container's resources.claims, and the
    # ResourceClaimTemplate they reference (a generated one, or one to create for several slices of one GPU).
    resource_claims: list[dict[str, str]] = field(default_factory=list)
    claims: list[dict[str, str]] = field(default_factory=list)
    claim_template: dict[str, Any] | None = None
    # DRA sharing pools: the shared ResourceClaim the pod references by name (the plan registers it).
    resource_claim: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        found = {
            "pool": self.pool,
            "tolerations": self.tolerations,
            "nodeSelector": self.node_selector,
            "limits": self.limits,
        }
        if self.claim_template is not None:
            found.update(resourceClaims=self.resource_claims, claims=self.claims, claimTemplate=self.claim_template)
        if self.resource_claim is not None:
            found.update(resourceClaims=self.resource_claims, claims=self.claims, resourceClaim=self.resource_claim)
        return found


def gpu_toleration() -> dict[str, str]:
    return GPU_TAINT.kubernetes_toleration()


def pool_node_selector(pool: ResolvedPool) -> dict[str, str]:
    """The pool's label, plus the MIG state where the operator applies the layout: no pod lands before it."""
    return {POOL_LABEL: pool.name, **pool.readiness_labels}


def pool_tolerations(pool: ResolvedPool) -> list[dict[str, str]]:
    """Every taint the pool's nodes carry as a toleration: ours, and the cloud's (AKS Spot's scalesetpriority)."""
    return [taint.kubernetes_toleration() for taint in pool.node_taints]


def find_pool(stack: Stack, name: str) -> ResolvedPool:
    for pool in stack.pools:
        if pool.name == name:
            return pool
    raise WorkloadError(f"no GPU pool named '{name}'; pools: {', '.join(p.name for p in stack.pools)}")


def slice_workload(
    stack: Stack, pool_name: str, profile: str | None = None, count: int = 1, shared_claim: int = 0
) -> GpuWorkload:
    """Scheduling for ``count`` slices of ``profile`` (or of the pool's only resource) on ``pool_name``.

    ``shared_claim``: on a DRA pool with sharing, which of the pool's shared ResourceClaims the pod joins (``0`` to
    the number of devices on its planned nodes, less one); each is meant for the pool's ``replicas`` pods.
    """
    # bool is an int to Python, but count=True would become the limit "True", which Kubernetes refuses.
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise WorkloadError(
            f"count must be a whole number of at least 1 (GPU resources are whole units), got {count!r}"
        )
    pool = find_pool(stack, pool_name)
    if stack.config.gpu_software.chosen_installer.uses_dra:
        return _dra_workload(stack, pool, profile, count, shared_claim)
    advertised = pool_capacity(pool).per_node  # usable at once: maxPods may cap the slices
    resource = _resource_for(pool, advertised, profile)
    per_node = advertised[resource]
    if count > per_node:
        raise WorkloadError(
            f"pool {pool.name} advertises {per_node}x {resource} per node; a pod asking for {count} would stay Pending"
        )
    if count > 1 and _fails_multiple(pool):
        raise WorkloadError(f"pool {pool.name} time-slices with failRequestsGreaterThanOne; request 1 {resource}")
    return GpuWorkload(pool.name, pool_tolerations(pool), pool_node_selector(pool), {resource: str(count)})


def _resource_for(pool: ResolvedPool, advertised: dict[str, int], profile: str | None) -> str:
    if profile is None:
        if len(advertised) == 1:
            return next(iter(advertised))
        if pool.mig is not None and pool.mig.node.whole_gpus:  # a per-GPU layout's whole GPUs: nvidia.com/gpu
            return next(name for name in (GPU_RESOURCE, f"{GPU_RESOURCE}.shared") if name in advertised)
        raise WorkloadError(f"pool {pool.name} advertises {', '.join(advertised)}; name the profile you want")
    if pool.mig is None or profile not in pool.mig.profiles:
        offered = ", ".join(pool.mig.profiles) if pool.mig else "whole GPUs only"
        raise WorkloadError(f"pool {pool.name} has no {profile} slices; it offers {offered}")
    base = GPU_RESOURCE if pool.mig_strategy == "single" else mig_resource_name(profile)
    for name in (base, f"{base}.shared"):
        if name in advertised:
            return name
    raise WorkloadError(f"pool {pool.name} does not advertise {base}")


def _fails_multiple(pool: ResolvedPool) -> bool:
    sharing = pool.sharing
    return bool(sharing and sharing.time_slicing and sharing.time_slicing.fail_requests_greater_than_one)


def _dra_workload(stack: Stack, pool: ResolvedPool, profile: str | None, count: int, shared_claim: int) -> GpuWorkload:
    """A claim on ``count`` devices of one kind; several MIG devices are asked on one GPU (``matchAttribute``)."""
    classes = pool_classes(stack, pool.name)
    whole = [c for c in classes if c.device.profile is None]
    if profile is None and len(classes) > 1 and len(whole) == 1:  # a per-GPU layout's whole GPUs
        chosen = whole[0]
    elif profile is None:
        if len(classes) != 1:
            raise WorkloadError(
                f"pool {pool.name} publishes {', '.join(c.device.token for c in classes)}; name the profile you want"
            )
        chosen = classes[0]
    else:
        found = [c for c in classes if c.device.profile == profile]
        if not found:
            offered = ", ".join(pool.mig.profiles) if pool.mig else "whole GPUs only"
            raise WorkloadError(f"pool {pool.name} has no {profile} slices; it offers {offered}")
        chosen = found[0]
    device = chosen.device
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise WorkloadError(f"count must be a whole number of at least 1, got {count!r}")
    if device.sharing is not None:
        return _shared_workload(pool, chosen, count, shared_claim)
    same_gpu = device.profile is not None and count > 1
    room = device.per_gpu if same_gpu else device.per_node
    if count > room:
        where = "GPU" if same_gpu else "node"
        raise WorkloadError(
            f"pool {pool.name} publishes {room}x {device.token} per {where}; a claim on {count} "
            "could never be allocated and the pod would stay Pending"
        )
    template = (
        chosen.claim_template()
        if count == 1
        else chosen.claim_template(count, same_gpu, f"{chosen.template_name}-x{count}")
    )
    name = template["metadata"]["name"]
    tolerations = [taint.kubernetes_toleration() for taint in pool.node_taints]
    return GpuWorkload(
        pool.name,
        tolerations,
        pool_node_selector(pool),
        {},
        [{"name": "gpu", "resourceClaimTemplateName": name}],
        [{"name": "gpu"}],
        template,
    )


def _shared_workload(pool: ResolvedPool, chosen: DraClass, count: int, index: int) -> GpuWorkload:
    """A pod that joins one of the pool's shared ResourceClaims (one device, shared by ``replicas`` pods)."""
    sharing = chosen.device.sharing
    assert sharing is not None
    if count != 1:
        raise WorkloadError(
            f"pool {pool.name} shares each {chosen.device.token} through one ResourceClaim ({sharing.strategy}, "
            f"{sharing.replicas} pods per claim); ask for 1"
        )
    claims = chosen.shared_claim_count
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < claims:
        raise WorkloadError(
            f"pool {pool.name} has {claims} shared claims (one per {chosen.device.token} on its planned nodes); "
            f"shared_claim must be 0..{claims - 1}, got {index!r}"
        )
    claim = chosen.shared_claim(index)
    return GpuWorkload(
        pool.name,
        pool_tolerations(pool),
        pool_node_selector(pool),
        {},
        [{"name": "gpu", "resourceClaimName": claim["metadata"]["name"]}],
        [{"name": "gpu"}],
        None,
        claim,
    )
